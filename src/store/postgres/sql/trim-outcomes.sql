-- Forgets kept outcomes of jobs finished before $1, at most $2, with their
-- history (outcomes-old.sql and purge.ts of the SQLite store, in one
-- statement). Along the primary key: jobs finish in about the order they
-- were created. SKIP LOCKED: two processes' trims take different rows.
WITH gone AS (
  DELETE FROM {{schema}}.job_outcomes WHERE id IN (
    SELECT id FROM {{schema}}.job_outcomes WHERE finished_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
  RETURNING id
), gone_history AS (
  DELETE FROM {{schema}}.job_history WHERE job_id IN (SELECT id FROM gone)
)
SELECT count(*)::int AS n FROM gone
