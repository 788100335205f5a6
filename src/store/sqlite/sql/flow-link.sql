-- A flow's job, just inserted: its parent, and, for a parent, its count of children and policy.
UPDATE jobs
SET parent_id = @parent,
    children_left = @left,
    children_failed = CASE WHEN @left IS NULL THEN NULL ELSE 0 END,
    on_child_failure = @policy
WHERE id = @id
