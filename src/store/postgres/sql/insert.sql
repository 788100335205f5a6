-- A batch of jobs in one multi-row INSERT (insert.sql of the SQLite store),
-- each column bound as an array and unnested: $1 names, $2 states, $3
-- payloads, $4 keys, $5 priorities, $6 run times, $7 retry policies, $8
-- timeouts, $9 groups, $10 trace contexts; $11 now. A key already taken inserts nothing (the
-- caller looks the first job up: insert-by-keys.sql). Answers each inserted
-- row's id and key.
--
-- The WHERE gives the transaction its id before the rows take theirs
-- (safe-head.ts: a change reader waits for an id still in flight by
-- waiting for the transactions its snapshot shows running).
--
-- ORDER BY ord: rows are inserted, and take identity values, in input
-- order, so the created rows' ids ascend in the order they were given.
INSERT INTO {{schema}}.jobs (name, state, payload, key, priority, run_at, retry, timeout_ms, group_key, trace_context, created_at, updated_at)
SELECT name, state, payload, key, priority, run_at, retry, timeout_ms, group_key, trace_context, $11, $11
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::bigint[], $7::text[], $8::bigint[], $9::text[], $10::text[])
  WITH ORDINALITY AS u (name, state, payload, key, priority, run_at, retry, timeout_ms, group_key, trace_context, ord)
WHERE pg_current_xact_id() IS NOT NULL
ORDER BY ord
ON CONFLICT (key) WHERE key IS NOT NULL DO NOTHING
RETURNING id, key
