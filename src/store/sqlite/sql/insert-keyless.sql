-- A job without an idempotency key inside a batch: no conflict to handle, the
-- id is SQLite's next rowid (next-id.sql says when the first row needs
-- insert-keyless-at.sql instead).
INSERT INTO jobs (name, state, payload, priority, run_at, retry, timeout_ms, created_at, updated_at, group_key, trace_context)
VALUES (@name, @state, @payload, @priority, @runAt, @retry, @timeout, @at, @at, @group, @traceContext)
