-- Deletes jobs of a state older than a time (queue.clean; clean-finished.sql
-- and clean-waiting.sql of the SQLite store), with their history, steps and
-- log lines, and counts them: $1 the state, $2 updated at or before this
-- time, $3 at most this many, $4 one name (null: every name), $5 the state is
-- a finished one, whose flow children may go (their parents counted them
-- when they finished). SKIP LOCKED: a claim holding a row keeps it, and
-- PostgreSQL checks each row's state again once it holds the lock.
WITH gone AS (
  DELETE FROM {{schema}}.jobs WHERE id IN (
    SELECT id FROM {{schema}}.jobs
    WHERE state = $1 AND updated_at <= $2 AND ($4::text IS NULL OR name = $4)
      AND lease_token IS NULL AND ($5::boolean OR parent_id IS NULL)
    LIMIT $3 FOR UPDATE SKIP LOCKED)
  RETURNING id
),
gone_history AS (DELETE FROM {{schema}}.job_history WHERE job_id IN (SELECT id FROM gone)),
gone_steps AS (DELETE FROM {{schema}}.job_steps WHERE job_id IN (SELECT id FROM gone)),
gone_logs AS (DELETE FROM {{schema}}.job_logs WHERE job_id IN (SELECT id FROM gone)),
counted AS (
  UPDATE {{schema}}.queue_meta SET value = value + (SELECT count(*) FROM gone) WHERE key = 'deleted' AND EXISTS (SELECT 1 FROM gone)
)
SELECT count(*)::int AS n FROM gone
