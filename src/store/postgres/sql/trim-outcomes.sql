-- Forgets kept outcomes of jobs finished before $1, at most $2, with their
-- history (outcomes-old.sql and purge.ts of the SQLite store, in one
-- statement): only among the oldest $3 ids, so a pass reads a bounded number
-- of rows. SKIP LOCKED: two processes' trims take different rows.
WITH gone AS (
  DELETE FROM {{schema}}.job_outcomes WHERE id IN (
    SELECT id FROM {{schema}}.job_outcomes
    WHERE id IN (SELECT id FROM {{schema}}.job_outcomes ORDER BY id LIMIT $3) AND finished_at < $1
    LIMIT $2 FOR UPDATE SKIP LOCKED)
  RETURNING id
), gone_history AS (
  DELETE FROM {{schema}}.job_history WHERE job_id IN (SELECT id FROM gone)
)
SELECT count(*)::int AS n FROM gone
