-- The values a job published (ctx.publish), the latest per key.
SELECT key, value, at FROM job_values WHERE job_id = @id ORDER BY key
