-- insert.sql for jobs none of which has a key, autocommitted, with the
-- wake-up: $1 … $11 as insert.sql, $12 the channel, $13 the payload. One
-- round trip, where BEGIN, INSERT, NOTIFY and COMMIT took four. The
-- uncorrelated sub-select is an InitPlan: run once, when the first returned
-- row needs it. The WHERE gives the transaction its id before the rows
-- take theirs (insert.sql).
INSERT INTO {{schema}}.jobs (name, state, payload, key, priority, run_at, retry, timeout_ms, group_key, trace_context, created_at, updated_at)
SELECT name, state, payload, key, priority, run_at, retry, timeout_ms, group_key, trace_context, $11, $11
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::bigint[], $7::text[], $8::bigint[], $9::text[], $10::text[])
  WITH ORDINALITY AS u (name, state, payload, key, priority, run_at, retry, timeout_ms, group_key, trace_context, ord)
WHERE pg_current_xact_id() IS NOT NULL
ORDER BY ord
ON CONFLICT (key) WHERE key IS NOT NULL DO NOTHING
RETURNING id, key, (SELECT pg_notify($12, $13)) IS NULL AS notified
