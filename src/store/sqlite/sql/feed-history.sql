-- The history rows in (@after, @upTo], oldest first: the change feed's second
-- sequence (change-feed.ts). A tombstone (job_id 0) holds an id, no change.
-- A job deleted as it finished has its name in its kept outcome.
SELECT h.job_id AS id, h.id AS seq, coalesce(j.name, o.name) AS name, h.from_state AS "from", h.to_state AS "to", h.event, h.at, h.data
FROM job_history h LEFT JOIN jobs j ON j.id = h.job_id LEFT JOIN job_outcomes o ON o.id = h.job_id
WHERE h.id > @after AND h.id <= @upTo AND h.job_id <> 0
ORDER BY h.id
