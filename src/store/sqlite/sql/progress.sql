-- A running job's progress (JSON text), written by the lease holder only.
UPDATE jobs SET progress_json = @progress
WHERE id = @id AND state = {{processing}} AND lease_token = @token
