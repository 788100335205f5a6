-- Transitions in a slice of history ids, by second, edge and name
-- (changes-transitions.sql of the SQLite store): @after, @upTo; @markAfter,
-- @markUpTo: the jobs whose transitions are counted apart (marked).
SELECT h.at / 1000 AS second, h.from_state AS "from", h.to_state AS "to", h.event, h.candidate, j.name,
  (h.job_id > @markAfter AND h.job_id <= @markUpTo) AS marked, count(*) AS count
FROM {{schema}}.job_history h LEFT JOIN {{schema}}.jobs j ON j.id = h.job_id
WHERE h.id > @after AND h.id <= @upTo AND h.job_id <> 0 AND h.event NOT IN ('job.progress', 'job.publish')
GROUP BY 1, 2, 3, 4, 5, 6, 7
