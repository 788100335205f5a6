-- The lease owners that claimed in a slice of history ids, with their last
-- claim (changes-claimers.sql of the SQLite store): @after, @upTo.
SELECT worker_id AS owner, max(at) AS at
FROM {{schema}}.job_history
WHERE id > @after AND id <= @upTo AND event = 'job.claim' AND worker_id IS NOT NULL
GROUP BY worker_id
