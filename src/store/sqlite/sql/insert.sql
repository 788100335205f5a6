-- A job with an idempotency key: an existing key inserts nothing (the caller
-- then looks the first job up). @id is null (SQLite's next rowid) except for
-- a batch's first row when the newest ids were deleted (next-id.sql).
INSERT INTO jobs (id, name, state, payload, key, priority, run_at, retry, timeout_ms, created_at, updated_at, group_key, trace_context)
VALUES (@id, @name, @state, @payload, @key, @priority, @runAt, @retry, @timeout, @at, @at, @group, @traceContext)
ON CONFLICT (key) WHERE key IS NOT NULL DO NOTHING
RETURNING id
