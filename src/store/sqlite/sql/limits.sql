-- Every row of the limits table.
SELECT kind, key, concurrency, spent, paused_until, updated_at FROM job_limits ORDER BY kind, key
