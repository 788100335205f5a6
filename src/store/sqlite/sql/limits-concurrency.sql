-- One group's concurrency, set (or removed with NULL) for that group alone.
INSERT INTO job_limits (kind, key, concurrency, updated_at) VALUES ('group', @key, @concurrency, @now)
ON CONFLICT (kind, key) DO UPDATE SET concurrency = excluded.concurrency, updated_at = excluded.updated_at
