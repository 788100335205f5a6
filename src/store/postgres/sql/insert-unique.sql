-- A job with a unique, debounce or throttle key (insert-unique.sql of the
-- SQLite store): $1 kind, $2 key, $3 name, $4 state, $5 payload, $6
-- priority, $7 run at, $8 retry policy, $9 timeout, $10 now, $11 the key's
-- span, $12 a throttle's window end, $13 group, $14 trace context. A key already held inserts
-- nothing (insert-unique.ts looks the holder up). The WHERE gives the
-- transaction its id before the row takes its own (insert.sql).
INSERT INTO {{schema}}.jobs (name, state, payload, priority, run_at, retry, timeout_ms, created_at, updated_at, unique_kind, unique_key, unique_span, unique_until, group_key, trace_context)
SELECT $3::text, $4::text, $5::text, $6::integer, $7::bigint, $8::text, $9::bigint, $10::bigint, $10::bigint, $1::text, $2::text, $11::integer, $12::bigint, $13::text, $14::text
WHERE pg_current_xact_id() IS NOT NULL
ON CONFLICT (unique_kind, unique_key) WHERE unique_key IS NOT NULL DO NOTHING
RETURNING id
