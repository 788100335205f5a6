-- A job without an idempotency key inside a batch: no conflict to handle.
-- @id comes from the store's id counter (next-id.sql).
INSERT INTO jobs (id, name, state, payload, priority, run_at, retry, timeout_ms, created_at, updated_at)
VALUES (@id, @name, @state, @payload, @priority, @runAt, @retry, @timeout, @at, @at)
