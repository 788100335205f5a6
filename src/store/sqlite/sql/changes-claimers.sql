-- Lease owners that claimed in (@after, @upTo], with their last claim.
SELECT worker_id AS owner, max(at) AS at
FROM job_history
WHERE id > @after AND id <= @upTo AND event = 'job.claim' AND worker_id IS NOT NULL
GROUP BY worker_id
