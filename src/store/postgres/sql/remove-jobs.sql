-- Deletes jobs on a caller's word (queue.remove; remove.ts), with their
-- history, steps and log lines, and counts them: $1 job ids, $2 the versions
-- and $3 the states they were read at. A job goes only while it is still at
-- that version and state and holds no lease. Answers the ids deleted.
-- $4: which of them a retention of 0 deletes once nothing holds them (not a
-- caller): their outcome is kept and their history stays, as a finishing
-- move that deletes its job keeps them (transition-batch.sql); one whose
-- throttle window is still open at $5 (the database's time; null: its
-- clock now) stays, as there: the window lives in its row.
--
-- Planned per call (prepared.ts): it finds jobs by an array of ids.
/* planned per call */ WITH r AS (SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::boolean[]) AS r (id, version, state, finished)),
now_at AS (SELECT coalesce($5::bigint, extract(epoch FROM clock_timestamp()) * 1000) AS at),
gone AS (
  DELETE FROM {{schema}}.jobs j USING r, now_at
  WHERE j.id = r.id AND j.version = r.version AND j.state = r.state AND j.lease_token IS NULL
    AND NOT (r.finished AND coalesce(j.unique_kind = 'throttle' AND j.unique_until > now_at.at, false))
  RETURNING j.id, r.finished, j.name, j.state, j.result, j.last_error, j.created_at, j.updated_at,
    CASE WHEN j.children_left IS NOT NULL THEN {{waitingChildren}} ELSE {{pending}} END AS born
),
kept AS (
  INSERT INTO {{schema}}.job_outcomes (id, name, state, born, result, last_error, created_at, finished_at)
  SELECT id, name, state, born, result, last_error, created_at, updated_at FROM gone WHERE finished
),
gone_history AS (DELETE FROM {{schema}}.job_history WHERE job_id IN (SELECT id FROM gone WHERE NOT finished)),
gone_steps AS (DELETE FROM {{schema}}.job_steps WHERE job_id IN (SELECT id FROM gone)),
gone_logs AS (DELETE FROM {{schema}}.job_logs WHERE job_id IN (SELECT id FROM gone)),
counted AS (
  UPDATE {{schema}}.queue_meta SET value = value + (SELECT count(*) FROM gone) WHERE key = 'deleted' AND EXISTS (SELECT 1 FROM gone)
)
SELECT id FROM gone
