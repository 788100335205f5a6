-- Pending and leased jobs per group, busiest first. Reads every pending or
-- leased grouped job: for the dashboard and `litejobs limits`, not a hot path.
SELECT group_key AS "group",
  sum(state = {{pending}}) AS pending,
  sum(state = {{processing}}) AS running
FROM jobs
WHERE group_key IS NOT NULL AND (state = {{pending}} OR state = {{processing}})
GROUP BY group_key
ORDER BY running DESC, pending DESC, group_key
LIMIT @limit
