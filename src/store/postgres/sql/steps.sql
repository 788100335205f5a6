-- A job's completed steps, in order (steps.sql of the SQLite store): $1 job id.
SELECT name, seq, result, wake_at, attempt, at FROM {{schema}}.job_steps WHERE job_id = $1 ORDER BY seq
