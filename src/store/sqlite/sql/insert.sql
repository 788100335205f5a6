-- A job with an idempotency key: an existing key inserts nothing (the caller
-- then looks the first job up). @id is null (SQLite's next rowid) except for
-- a batch's first row when the newest ids were deleted (next-id.sql).
INSERT INTO jobs (id, key, {{enqueued.columns}}, created_at, updated_at)
VALUES (@id, @key, {{enqueued.params}}, @at, @at)
ON CONFLICT (key) WHERE key IS NOT NULL DO NOTHING
RETURNING id
