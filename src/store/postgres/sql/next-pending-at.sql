-- When the next pending job enqueued to run later comes due (next-pending-at.sql
-- of the SQLite store): $1 names. A job enqueued to run now is claimed, not
-- timed: jobs_delayed holds only those due later than they were created. A
-- pending job a run still holds comes due when its hold runs out, at the
-- latest (its run's release wakes the claim loops sooner).
SELECT min(at) AS at FROM (
  SELECT min(run_at) AS at FROM {{schema}}.jobs
  WHERE name = ANY($1::text[]) AND state = {{pending}} AND run_at > created_at AND lease_token IS NULL
  UNION ALL
  SELECT min(greatest(run_at, locked_until)) AS at FROM {{schema}}.jobs
  WHERE lease_token IS NOT NULL AND state <> {{processing}} AND state = {{pending}} AND name = ANY($1::text[])
) t
