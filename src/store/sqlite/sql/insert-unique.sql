-- A job with a unique, debounce or throttle key: a key held by another job
-- inserts nothing (the caller then looks the holder up). @id as in insert.sql.
INSERT INTO jobs (id, name, state, payload, priority, run_at, retry, timeout_ms, created_at, updated_at, group_key, unique_kind, unique_key, unique_span, unique_until, trace_context)
VALUES (@id, @name, @state, @payload, @priority, @runAt, @retry, @timeout, @at, @at, @group, @kind, @key, @span, @until, @traceContext)
ON CONFLICT (unique_kind, unique_key) WHERE unique_key IS NOT NULL DO NOTHING
RETURNING id
