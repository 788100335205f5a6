-- The first half of a claim (see claim-lease.sql; both run in one BEGIN
-- IMMEDIATE transaction): up to @limit due pending jobs, in claim order.
-- INDEXED BY: walking jobs_ready in order avoids sorting every pending row.
-- Jobs committed on their own were indexed by index-new.sql just before.
-- Grouped jobs are not in jobs_ready: claim-group-walk.sql finds them.
-- Only the columns a pending job can hold (the ready set, job-columns.ts; the
-- rest are NULL before a claim, or written by it), and the key's span (a
-- claim gives back keys shorter than 'active'): a row of every column
-- measured over twice as dear.
SELECT {{ready.columns}}, unique_span
FROM jobs INDEXED BY jobs_ready
WHERE state = {{pending}} AND indexed = 1 AND group_key IS NULL
  AND run_at <= @now AND (lease_token IS NULL OR locked_until < @now)
  AND name IN (SELECT value FROM json_each(@names))
ORDER BY priority DESC, run_at, id
LIMIT @limit
