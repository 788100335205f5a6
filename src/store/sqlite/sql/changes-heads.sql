-- The newest job and history row: both ids only grow, in commit order, so
-- together they mark how far a reader has seen (a change cursor).
SELECT (SELECT coalesce(max(id), 0) FROM jobs) AS jobId,
       (SELECT coalesce(max(id), 0) FROM job_history) AS historyId
