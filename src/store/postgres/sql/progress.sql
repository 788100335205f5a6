-- A running job's progress (progress.sql of the SQLite store): $1 job id,
-- $2 lease token, $3 the value's JSON text, $4 when, $5 whether the history
-- records it (under the lease's owner). Written by the lease holder only; the
-- history row (insert-progress-history.sql of the SQLite store) lands with it.
WITH moved AS (
  UPDATE {{schema}}.jobs SET progress_json = $3 WHERE id = $1 AND state = {{processing}} AND lease_token = $2
  RETURNING id, lease_owner
), recorded AS (
  INSERT INTO {{schema}}.job_history (job_id, from_state, to_state, event, at, worker_id, lease_token, data)
  SELECT id, {{processing}}, {{processing}}, 'job.progress', $4, lease_owner, $2, $3 FROM moved WHERE $5::boolean
)
SELECT count(*)::int AS n FROM moved
