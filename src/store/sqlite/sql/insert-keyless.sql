-- A job without an idempotency key: no conflict to handle, the id is the rowid.
INSERT INTO jobs (name, state, payload, priority, run_at, retry, timeout_ms, created_at, updated_at)
VALUES (:name, :state, :payload, :priority, :runAt, :retry, :timeout, :at, :at)
