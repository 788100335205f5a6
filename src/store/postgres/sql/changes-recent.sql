-- The newest transitions of a slice of history ids, newest first
-- (changes-recent.sql of the SQLite store): @after, @upTo, @limit.
SELECT h.job_id AS id, h.id AS seq, j.name, h.from_state AS "from", h.to_state AS "to", h.event, h.at, h.data
FROM {{schema}}.job_history h LEFT JOIN {{schema}}.jobs j ON j.id = h.job_id
WHERE h.id > @after AND h.id <= @upTo AND h.job_id <> 0
ORDER BY h.id DESC LIMIT @limit
