-- The history rows of a slice of ids, oldest first (feed-history.sql of the
-- SQLite store): @after, @upTo.
SELECT h.job_id AS id, h.id AS seq, j.name, h.from_state AS "from", h.to_state AS "to", h.event, h.at
FROM {{schema}}.job_history h LEFT JOIN {{schema}}.jobs j ON j.id = h.job_id
WHERE h.id > @after AND h.id <= @upTo AND h.job_id <> 0
ORDER BY h.id
