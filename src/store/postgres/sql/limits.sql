-- Every row of the limits table (limits.sql of the SQLite store).
SELECT kind, key, concurrency, spent, paused_until, updated_at FROM {{schema}}.job_limits ORDER BY kind, key
