-- The gaps among the ids just above a floor (safe-head.ts): ids are handed
-- out at insert, not at commit, so a gap may be a row still in flight. $1 the
-- floor; the table and how many ids to look at are written in. The floor
-- itself stands in as a row, so that a gap right above it counts (its row may
-- be gone). Each row also carries the snapshot (`xmin:xmax:xip,…`), and the
-- transaction ids (32-bit) of this database's transactions that hold one
-- now, prepared ones included: those that may still fill a gap seen now.
-- The snapshot's own list is not enough: it leaves out transactions whose
-- id is past its xmax, and holds other databases' too. A job deleted as it
-- finished is no gap: its id lives on in job_outcomes ({{more}}: that
-- table's ids for jobs, none for the history).
SELECT id + 1 AS "from", next - 1 AS "to", last, pg_current_snapshot()::text AS snapshot,
  ARRAY(SELECT backend_xid::text FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND datname = current_database()
        UNION SELECT transaction::text FROM pg_prepared_xacts WHERE database = current_database()) AS active
FROM (
  SELECT id, lead(id) OVER (ORDER BY id) AS next, max(id) OVER () AS last FROM (
    SELECT $1::bigint AS id
    UNION ALL
    (SELECT id FROM (
      (SELECT id FROM {{schema}}.{{table}} WHERE id > $1 ORDER BY id LIMIT {{window}})
      {{more}}
    ) taken ORDER BY id LIMIT {{window}})
  ) ids
) w
WHERE next > id + 1 OR next IS NULL
ORDER BY id
