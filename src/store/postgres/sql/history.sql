-- A job's transitions (history.sql of the SQLite store): $1 job id. The
-- creation entry comes from the job row (a parent of a flow is created
-- waiting for its children); the rest from job_history, in order.
SELECT NULL AS from_state, CASE WHEN children_left IS NOT NULL THEN {{waitingChildren}} ELSE {{pending}} END AS to_state,
  'job.enqueue' AS event, NULL::int AS candidate, created_at AS at, NULL AS worker_id, NULL AS lease_token, NULL AS error, 0::bigint AS seq
FROM {{schema}}.jobs WHERE id = $1
UNION ALL
SELECT from_state, to_state, event, candidate, at, worker_id, lease_token, error, id AS seq
FROM {{schema}}.job_history WHERE job_id = $1 AND event NOT IN ('job.progress', 'job.publish')
ORDER BY seq
