-- The newest history row's id (0 when there is none): a purge that deleted the
-- newest rows keeps their id taken with a tombstone (purge.ts).
SELECT coalesce(max(id), 0) FROM job_history
