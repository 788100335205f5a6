-- How long the newest claims of a slice of history ids waited after their job
-- was due (changes-latency.sql of the SQLite store): @after, @upTo, @limit.
SELECT h.at, h.at - greatest(j.run_at, j.created_at) AS ms, j.name
FROM {{schema}}.job_history h JOIN {{schema}}.jobs j ON j.id = h.job_id
WHERE h.id > @after AND h.id <= @upTo AND h.event = 'job.claim' AND greatest(j.run_at, j.created_at) <= h.at
ORDER BY h.id DESC LIMIT @limit
