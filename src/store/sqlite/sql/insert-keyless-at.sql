-- insert-keyless.sql with the id given (@id): a batch's first row when the
-- newest ids were deleted (next-id.sql).
INSERT INTO jobs (id, name, state, payload, priority, run_at, retry, timeout_ms, created_at, updated_at, group_key, trace_context)
VALUES (@id, @name, @state, @payload, @priority, @runAt, @retry, @timeout, @at, @at, @group, @traceContext)
