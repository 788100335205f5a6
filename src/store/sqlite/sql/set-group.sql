-- A new job's group, written in its insert's transaction.
UPDATE jobs SET group_key = @group WHERE id = @id
