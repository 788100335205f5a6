-- A job with a unique, debounce or throttle key (insert-unique.sql of the
-- SQLite store): $1 kind, $2 key, $3 the key's span, $4 a throttle's window
-- end, $5 now, then from $6 the job's values an enqueue writes (the enqueued
-- set, job-columns.ts). A key already held inserts nothing (insert-unique.ts
-- looks the holder up). The WHERE gives the transaction its id before the
-- row takes its own (insert.sql).
INSERT INTO {{schema}}.jobs (unique_kind, unique_key, unique_span, unique_until, created_at, updated_at, {{enqueued.columns}})
SELECT $1::text, $2::text, $3::integer, $4::bigint, $5::bigint, $5::bigint, {{enqueued.params $6}}
WHERE pg_current_xact_id() IS NOT NULL
ON CONFLICT (unique_kind, unique_key) WHERE unique_key IS NOT NULL DO NOTHING
RETURNING id
