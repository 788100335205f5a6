-- The creation entry comes from the job row (a flow's parent was created waiting for its children); the rest from job_history.
SELECT NULL AS from_state, CASE WHEN children_left IS NOT NULL THEN {{waitingChildren}} ELSE {{pending}} END AS to_state, 'job.enqueue' AS event, NULL AS candidate, created_at AS at,
       NULL AS worker_id, NULL AS lease_token, NULL AS error, 0 AS seq
FROM jobs WHERE id = @id
UNION ALL
SELECT from_state, to_state, event, candidate, at, worker_id, lease_token, error, id AS seq
FROM job_history WHERE job_id = @id AND event NOT IN ('job.progress', 'job.publish')
ORDER BY seq
