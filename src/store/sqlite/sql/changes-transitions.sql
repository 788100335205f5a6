-- History rows (moves: not progress updates) in (@after, @upTo], grouped by second, edge and job name (NULL
-- when the job is gone). `marked`: the job's id lies in (@markAfter, @markUpTo]
-- (live counts leave out jobs they have not counted yet).
SELECT h.at / 1000 AS second, h.from_state AS "from", h.to_state AS "to", h.event, h.candidate, j.name,
       (h.job_id > @markAfter AND h.job_id <= @markUpTo) AS marked, count(*) AS count
FROM job_history h LEFT JOIN jobs j ON j.id = h.job_id
WHERE h.id > @after AND h.id <= @upTo AND h.job_id <> 0 AND h.event NOT IN ('job.progress', 'job.publish')
GROUP BY 1, 2, 3, 4, 5, 6, 7
