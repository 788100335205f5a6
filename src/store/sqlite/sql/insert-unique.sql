-- A job with a unique, debounce or throttle key: a key held by another job
-- inserts nothing (the caller then looks the holder up). @id as in insert.sql.
INSERT INTO jobs (id, {{enqueued.columns}}, created_at, updated_at, unique_kind, unique_key, unique_span, unique_until)
VALUES (@id, {{enqueued.params}}, @at, @at, @kind, @key, @span, @until)
ON CONFLICT (unique_kind, unique_key) WHERE unique_key IS NOT NULL DO NOTHING
RETURNING id
