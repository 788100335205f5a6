-- A job with an idempotency key: an existing key inserts nothing (the caller
-- then looks the first job up). @id comes from the store's id counter
-- (next-id.sql), so a deleted job's id is never handed out again.
INSERT INTO jobs (id, name, state, payload, key, priority, run_at, retry, timeout_ms, created_at, updated_at)
VALUES (@id, @name, @state, @payload, @key, @priority, @runAt, @retry, @timeout, @at, @at)
ON CONFLICT (key) WHERE key IS NOT NULL DO NOTHING
RETURNING id
