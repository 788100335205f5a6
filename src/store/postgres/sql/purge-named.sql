-- Deletes one job name's finished jobs of a state that its retention no
-- longer keeps, with their history, steps and log lines, and counts them
-- (named-before.sql, named-beyond.sql and purge.ts of the SQLite store, in
-- one statement): $1 the name, $2 the state, $3 updated before this time
-- (null: no age), $4 past the newest this many (null: no count), $5 at most
-- this many. Along jobs_finished_by_name (retention-by-name-index.sql). A
-- job a run holds, a flow child whose parent has yet to finish, or a job
-- whose throttle window is still open at $6 (the database's time; null: its
-- clock now) counts among the newest but stays. $7: a retention of 0 deletes
-- them, each keeping its outcome and history, as the finishing move would.
--
-- The locking select names each row at the version the snapshot read, and
-- repeats the other conditions: under READ COMMITTED a row changed and
-- committed after this statement's snapshot (a dead job retried meanwhile,
-- even one that died again and is now among the newest) is judged again
-- once locked, and has moved on.
WITH doomed AS (
  (SELECT id, version FROM {{schema}}.jobs
   WHERE (state = {{completed}} OR state = {{dead}} OR state = {{cancelled}}) AND name = $1 AND state = $2
     AND $3::bigint IS NOT NULL AND updated_at < $3::bigint
   LIMIT $5)
  UNION
  (SELECT id, version FROM {{schema}}.jobs
   WHERE (state = {{completed}} OR state = {{dead}} OR state = {{cancelled}}) AND name = $1 AND state = $2
     AND $4::int IS NOT NULL
   ORDER BY updated_at DESC, id DESC OFFSET coalesce($4::int, 0) LIMIT $5)
), gone AS (
  DELETE FROM {{schema}}.jobs WHERE id IN (
    SELECT id FROM {{schema}}.jobs j
    WHERE (id, version) IN (SELECT id, version FROM doomed) AND lease_token IS NULL
      AND (state = {{completed}} OR state = {{dead}} OR state = {{cancelled}}) AND name = $1 AND state = $2
      AND ($4::int IS NOT NULL OR updated_at < $3::bigint)
      AND NOT coalesce(j.unique_kind = 'throttle' AND j.unique_until > coalesce($6::bigint, extract(epoch FROM clock_timestamp()) * 1000), false)
      AND (j.parent_id IS NULL OR NOT EXISTS (SELECT 1 FROM {{schema}}.jobs p WHERE p.id = j.parent_id AND p.state <> {{completed}} AND p.state <> {{dead}} AND p.state <> {{cancelled}}))
    LIMIT $5 FOR UPDATE SKIP LOCKED)
  RETURNING id, name, state, result, last_error, created_at, updated_at,
    CASE WHEN children_left IS NOT NULL THEN {{waitingChildren}} ELSE {{pending}} END AS born
), kept AS (
  INSERT INTO {{schema}}.job_outcomes (id, name, state, born, result, last_error, created_at, finished_at)
  SELECT id, name, state, born, result, last_error, created_at, updated_at FROM gone WHERE $7::boolean
), gone_history AS (
  DELETE FROM {{schema}}.job_history WHERE job_id IN (SELECT id FROM gone) AND NOT $7::boolean
), gone_steps AS (
  DELETE FROM {{schema}}.job_steps WHERE job_id IN (SELECT id FROM gone)
), gone_logs AS (
  DELETE FROM {{schema}}.job_logs WHERE job_id IN (SELECT id FROM gone)
), counted AS (
  UPDATE {{schema}}.queue_meta SET value = value + (SELECT count(*) FROM gone) WHERE key = 'deleted' AND EXISTS (SELECT 1 FROM gone)
)
SELECT count(*)::int AS n FROM gone
