-- A group's concurrency set at run time (limits-concurrency.sql of the SQLite
-- store): $1 group, $2 concurrency (null: the definitions' again), $3 now.
INSERT INTO {{schema}}.job_limits (kind, key, concurrency, updated_at) VALUES ('group', $1, $2, $3)
ON CONFLICT (kind, key) DO UPDATE SET concurrency = excluded.concurrency, updated_at = excluded.updated_at
