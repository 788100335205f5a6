-- Claims in (@after, @upTo], newest first: how long each job waited from when
-- it could run (its due time, or its creation if later) to its start. A job
-- whose due time moved past the claim since (a retry) is left out: its
-- claim's wait is no longer known. The name: the overview's waits per name.
SELECT h.at, h.at - max(j.run_at, j.created_at) AS ms, j.name
FROM job_history h JOIN jobs j ON j.id = h.job_id
WHERE h.id > @after AND h.id <= @upTo AND h.event = 'job.claim' AND max(j.run_at, j.created_at) <= h.at
ORDER BY h.id DESC LIMIT @limit
