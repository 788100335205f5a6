-- A job without an idempotency key: no conflict to handle, the id is the rowid.
-- Positional parameters: name, state, payload, priority, run_at, retry, timeout_ms, created_at, updated_at
INSERT INTO jobs (name, state, payload, priority, run_at, retry, timeout_ms, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
