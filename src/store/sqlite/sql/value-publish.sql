-- A value a running job publishes (ctx.publish): the latest under its key,
-- written only while the job is still leased under @token.
INSERT INTO job_values (job_id, key, value, at)
SELECT id, @key, @value, @at FROM jobs WHERE id = @id AND state = {{processing}} AND lease_token = @token
ON CONFLICT (job_id, key) DO UPDATE SET value = excluded.value, at = excluded.at
