-- The jobs of these names leased now, per name: what `globalConcurrency`
-- counts. Walks jobs_leased (every leased job: as many as the workers of
-- every process hold, with their prefetch), not the table: for the names
-- with a global concurrency, and for the limits view.
SELECT name, NULL AS group_key, count(*) AS n
FROM jobs INDEXED BY jobs_leased
WHERE state = {{processing}} AND name IN (SELECT value FROM json_each(@names))
GROUP BY name
