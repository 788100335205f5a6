-- A completed step (ctx.step) or sleep (ctx.sleep), written only while the job
-- is still leased under @token; its seq is the job's next. A step already
-- recorded under this name keeps its first row (steps.ts tells the two misses apart).
INSERT INTO job_steps (job_id, name, seq, result, wake_at, attempt, at)
SELECT @id, @name, coalesce((SELECT max(seq) FROM job_steps WHERE job_id = @id), 0) + 1, @result, @wakeAt, @attempt, @at
FROM jobs WHERE id = @id AND state = {{processing}} AND lease_token = @token
ON CONFLICT (job_id, name) DO NOTHING
