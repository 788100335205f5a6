-- Deletes jobs on a caller's word (queue.remove; remove.ts), with their
-- history, steps and log lines, and counts them: $1 job ids, $2 the versions
-- and $3 the states they were read at. A job goes only while it is still at
-- that version and state and holds no lease. Answers the ids deleted.
--
-- Planned per call (prepared.ts): it finds jobs by an array of ids.
/* planned per call */ WITH r AS (SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[]) AS r (id, version, state)),
gone AS (
  DELETE FROM {{schema}}.jobs j USING r
  WHERE j.id = r.id AND j.version = r.version AND j.state = r.state AND j.lease_token IS NULL
  RETURNING j.id
),
gone_history AS (DELETE FROM {{schema}}.job_history WHERE job_id IN (SELECT id FROM gone)),
gone_steps AS (DELETE FROM {{schema}}.job_steps WHERE job_id IN (SELECT id FROM gone)),
gone_logs AS (DELETE FROM {{schema}}.job_logs WHERE job_id IN (SELECT id FROM gone)),
counted AS (
  UPDATE {{schema}}.queue_meta SET value = value + (SELECT count(*) FROM gone) WHERE key = 'deleted' AND EXISTS (SELECT 1 FROM gone)
)
SELECT id FROM gone
