-- A keyless job committed on its own: outside the claim index until the next
-- claim indexes it (migration 003). Its id is above `indexed_upto`, which
-- every delete first moves past the ids it deletes, so an id is never handed
-- out twice even when the newest rows were deleted (SQLite would reuse them).
INSERT INTO jobs (id, name, state, payload, priority, run_at, retry, timeout_ms, created_at, updated_at, indexed, trace_context)
VALUES (
  max((SELECT coalesce(max(id), 0) FROM jobs), (SELECT value FROM queue_meta WHERE key = 'indexed_upto')) + 1,
  @name, @state, @payload, @priority, @runAt, @retry, @timeout, @at, @at, 0, @traceContext
)
