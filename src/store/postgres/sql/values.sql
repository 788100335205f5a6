-- The values a job published (ctx.publish), the latest per key.
SELECT key, value, at FROM {{schema}}.job_values WHERE job_id = $1 ORDER BY key
