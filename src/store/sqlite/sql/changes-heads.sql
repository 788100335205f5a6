-- The newest job and history row: both ids only grow, in commit order, so
-- together they mark how far a reader has seen (a change cursor). A job
-- deleted as it finished still counts, by its kept outcome (its moves stay
-- in the history, and the feed reads its creation from job_outcomes).
SELECT max((SELECT coalesce(max(id), 0) FROM jobs), (SELECT coalesce(max(id), 0) FROM job_outcomes)) AS jobId,
       (SELECT coalesce(max(id), 0) FROM job_history) AS historyId
