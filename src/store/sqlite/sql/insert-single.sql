-- A keyless job committed on its own: outside the claim index until the next
-- claim indexes it (migration 003). Its id is above `indexed_upto` even when
-- the newest rows were deleted (SQLite would reuse their ids), so the claim's
-- look above that mark always finds it.
-- Positional parameters: name, state, payload, priority, run_at, retry, timeout_ms, created_at, updated_at
INSERT INTO jobs (id, name, state, payload, priority, run_at, retry, timeout_ms, created_at, updated_at, indexed)
VALUES (
  max((SELECT coalesce(max(id), 0) FROM jobs), (SELECT value FROM queue_meta WHERE key = 'indexed_upto')) + 1,
  ?, ?, ?, ?, ?, ?, ?, ?, ?, 0
)
