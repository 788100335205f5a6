-- A value a running job publishes (ctx.publish): the latest under its key,
-- written only while the job is still leased under @token, and under a new
-- key only while the job holds fewer than @room.
INSERT INTO job_values (job_id, key, value, at)
SELECT id, @key, @value, @at FROM jobs WHERE id = @id AND state = {{processing}} AND lease_token = @token
  AND (EXISTS (SELECT 1 FROM job_values WHERE job_id = @id AND key = @key) OR (SELECT count(*) FROM job_values WHERE job_id = @id) < @room)
ON CONFLICT (job_id, key) DO UPDATE SET value = excluded.value, at = excluded.at
