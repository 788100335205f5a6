-- The first half of a claim (see claim-lease.sql; both run in one BEGIN
-- IMMEDIATE transaction): up to @limit due pending jobs, in claim order.
-- INDEXED BY: walking jobs_ready in order avoids sorting every pending row.
-- Jobs committed on their own were indexed by index-new.sql just before.
SELECT *
FROM jobs INDEXED BY jobs_ready
WHERE state = {{pending}} AND indexed = 1
  AND run_at <= @now
  AND name IN (SELECT value FROM json_each(@names))
ORDER BY priority DESC, run_at, id
LIMIT @limit
