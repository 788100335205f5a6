-- Pending and running jobs by group, busiest first (group-counts.sql of the
-- SQLite store): $1 at most this many groups. Reads every pending or leased
-- grouped job: for the dashboard and `litejobs limits`, not a hot path.
SELECT group_key AS "group",
  count(*) FILTER (WHERE state = {{pending}})::int AS pending,
  count(*) FILTER (WHERE state = {{processing}})::int AS running
FROM {{schema}}.jobs
WHERE group_key IS NOT NULL AND (state = {{pending}} OR state = {{processing}})
GROUP BY group_key
ORDER BY running DESC, pending DESC, group_key
LIMIT $1
