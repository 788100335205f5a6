-- When the next job of these delayed states comes due (next-due-at.sql of
-- the SQLite store): $1 names, $2 states. The base states are left out, as in
-- due-jobs.sql.
SELECT min(run_at) AS at FROM {{schema}}.jobs
WHERE state = ANY($2::text[]) AND name = ANY($1::text[])
  AND state <> {{pending}} AND state <> {{processing}} AND state <> {{completed}} AND state <> {{dead}} AND state <> {{cancelled}}
