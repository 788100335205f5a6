-- When the next pending job enqueued to run later comes due (next-pending-at.sql
-- of the SQLite store): $1 names. A job enqueued to run now is claimed, not
-- timed: jobs_delayed holds only those due later than they were created.
SELECT min(run_at) AS at FROM {{schema}}.jobs WHERE name = ANY($1::text[]) AND state = {{pending}} AND run_at > created_at
