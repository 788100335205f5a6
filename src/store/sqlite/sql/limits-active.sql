-- The name and group limit rows a claim needs: groups' own concurrency,
-- pauses in force, names' buckets. One group's buckets of a name are read
-- per claim for the groups it saw (limits-buckets.sql).
SELECT kind, key, concurrency, spent, paused_until AS "pausedUntil"
FROM job_limits
WHERE kind <> 'name-group' AND (concurrency IS NOT NULL OR paused_until > @now OR spent IS NOT NULL)
