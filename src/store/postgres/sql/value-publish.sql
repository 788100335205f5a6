-- value-publish.sql and insert-publish-history.sql of the SQLite store, in
-- one statement: $1 job id, $2 lease token, $3 key, $4 the value's JSON
-- text, $5 when, $6 whether the history records it, $7 the most keys a job
-- holds (a new key past them is not written). Written by the lease holder
-- only (its row locked while it writes). Answers whether the lease holds
-- and whether the value was written.
WITH held AS (
  SELECT id, lease_owner FROM {{schema}}.jobs WHERE id = $1 AND state = {{processing}} AND lease_token = $2
  FOR NO KEY UPDATE
), saved AS (
  INSERT INTO {{schema}}.job_values (job_id, key, value, at)
  SELECT id, $3, $4, $5 FROM held
  WHERE EXISTS (SELECT 1 FROM {{schema}}.job_values WHERE job_id = $1 AND key = $3)
    OR (SELECT count(*) FROM {{schema}}.job_values WHERE job_id = $1) < $7
  ON CONFLICT (job_id, key) DO UPDATE SET value = excluded.value, at = excluded.at
  RETURNING job_id
), recorded AS (
  INSERT INTO {{schema}}.job_history (job_id, from_state, to_state, event, at, worker_id, lease_token, data)
  SELECT id, {{processing}}, {{processing}}, 'job.publish', $5, lease_owner, $2, json_build_object('key', $3::text, 'value', $4::json)::text FROM held
  WHERE $6::boolean AND EXISTS (SELECT 1 FROM saved)
)
SELECT (SELECT count(*) FROM held)::int AS n, EXISTS (SELECT 1 FROM saved) AS written
