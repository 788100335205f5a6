-- insert.sql for jobs none of which has a key, autocommitted, with the
-- wake-up: $1 now, $2 keys (all null), $3 the channel, $4 the payload, then
-- from $5 the enqueued set's arrays as in insert.sql. One round trip, where
-- BEGIN, INSERT, NOTIFY and COMMIT took four. The uncorrelated sub-select is
-- an InitPlan: run once, when the first returned row needs it. The WHERE
-- gives the transaction its id before the rows take theirs (insert.sql).
INSERT INTO {{schema}}.jobs (key, {{enqueued.columns}}, created_at, updated_at)
SELECT key, {{enqueued.columns}}, $1, $1
FROM unnest($2::text[], {{enqueued.arrays $5}})
  WITH ORDINALITY AS u (key, {{enqueued.columns}}, ord)
WHERE pg_current_xact_id() IS NOT NULL
ORDER BY ord
ON CONFLICT (key) WHERE key IS NOT NULL DO NOTHING
RETURNING id, key, (SELECT pg_notify($3, $4)) IS NULL AS notified
