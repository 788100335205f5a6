-- The newest history rows in (@after, @upTo], newest first.
SELECT h.job_id AS id, h.id AS seq, j.name, h.from_state AS "from", h.to_state AS "to", h.event, h.at, h.data
FROM job_history h LEFT JOIN jobs j ON j.id = h.job_id
WHERE h.id > @after AND h.id <= @upTo AND h.job_id <> 0
ORDER BY h.id DESC LIMIT @limit
