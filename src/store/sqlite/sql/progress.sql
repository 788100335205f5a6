-- A running job's progress, written by the lease holder only.
UPDATE jobs SET progress = @progress
WHERE id = @id AND state = {{processing}} AND lease_token = @token
