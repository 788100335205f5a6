-- Deletes finished jobs older than their retention, with their history, steps
-- and log lines, and counts them (finished-before.sql then purge.ts of the
-- SQLite store, in one statement): $1 the finished state, $2 updated before
-- this time, $3 at most this many, $4 names whose own retention rules that
-- state (null: none). A flow child whose parent has yet to finish stays (the
-- parent reads its result), and so does a job whose throttle window is still
-- open at $5 (the database's time; null: its clock now): the window lives in its row.
-- $6: a retention of 0 deletes them, each keeping its outcome and history, as
-- the finishing move would (keep-outcome-of.sql of the SQLite store). SKIP LOCKED: two processes' retention loops take
-- different jobs, and neither waits on a job being moved.
WITH gone AS (
  DELETE FROM {{schema}}.jobs WHERE id IN (
    SELECT id FROM {{schema}}.jobs j
    WHERE (state = {{completed}} OR state = {{dead}} OR state = {{cancelled}}) AND state = $1 AND updated_at < $2
      AND lease_token IS NULL AND NOT coalesce(j.unique_kind = 'throttle' AND j.unique_until > coalesce($5::bigint, extract(epoch FROM clock_timestamp()) * 1000), false)
      AND ($4::text[] IS NULL OR name <> ALL ($4::text[]))
      AND (j.parent_id IS NULL OR NOT EXISTS (SELECT 1 FROM {{schema}}.jobs p WHERE p.id = j.parent_id AND p.state <> {{completed}} AND p.state <> {{dead}} AND p.state <> {{cancelled}}))
    LIMIT $3 FOR UPDATE SKIP LOCKED)
  RETURNING id, name, state, result, last_error, created_at, updated_at,
    CASE WHEN children_left IS NOT NULL THEN {{waitingChildren}} ELSE {{pending}} END AS born
), kept AS (
  INSERT INTO {{schema}}.job_outcomes (id, name, state, born, result, last_error, created_at, finished_at)
  SELECT id, name, state, born, result, last_error, created_at, updated_at FROM gone WHERE $6::boolean
), gone_history AS (
  DELETE FROM {{schema}}.job_history WHERE job_id IN (SELECT id FROM gone) AND NOT $6::boolean
), gone_steps AS (
  DELETE FROM {{schema}}.job_steps WHERE job_id IN (SELECT id FROM gone)
), gone_logs AS (
  DELETE FROM {{schema}}.job_logs WHERE job_id IN (SELECT id FROM gone)
), counted AS (
  UPDATE {{schema}}.queue_meta SET value = value + (SELECT count(*) FROM gone) WHERE key = 'deleted' AND EXISTS (SELECT 1 FROM gone)
)
SELECT count(*) AS n FROM gone
