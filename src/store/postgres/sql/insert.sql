-- A batch of jobs in one multi-row INSERT (insert.sql of the SQLite store),
-- each column bound as an array and unnested: $1 now, $2 keys, then from $3
-- one array per column an enqueue writes (the enqueued set, job-columns.ts).
-- A key already taken inserts nothing (the caller looks the first job up:
-- insert-by-keys.sql). Answers each inserted row's id and key.
--
-- The WHERE gives the transaction its id before the rows take theirs
-- (safe-head.ts: a change reader waits for an id still in flight by
-- waiting for the transactions its snapshot shows running).
--
-- ORDER BY ord: rows are inserted, and take identity values, in input
-- order, so the created rows' ids ascend in the order they were given.
INSERT INTO {{schema}}.jobs (key, {{enqueued.columns}}, created_at, updated_at)
SELECT key, {{enqueued.columns}}, $1, $1
FROM unnest($2::text[], {{enqueued.arrays $3}})
  WITH ORDINALITY AS u (key, {{enqueued.columns}}, ord)
WHERE pg_current_xact_id() IS NOT NULL
ORDER BY ord
ON CONFLICT (key) WHERE key IS NOT NULL DO NOTHING
RETURNING id, key
