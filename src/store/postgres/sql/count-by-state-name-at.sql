-- count-by-state-name.sql as of history row @historyId: ids are handed out at
-- insert, not at commit, so the read's snapshot may hold transitions past the
-- cursor; those of the slice's jobs are undone (dashboard-reads.ts). @after,
-- @upTo, @historyId.
SELECT state, name, sum(n)::bigint AS count FROM (
  SELECT state, name, count(*) AS n FROM {{schema}}.jobs WHERE id > @after AND id <= @upTo GROUP BY state, name
  UNION ALL
  SELECT h.to_state, j.name, -count(*) FROM {{schema}}.job_history h JOIN {{schema}}.jobs j ON j.id = h.job_id
  WHERE h.id > @historyId AND h.job_id > @after AND h.job_id <= @upTo GROUP BY 1, 2
  UNION ALL
  SELECT h.from_state, j.name, count(*) FROM {{schema}}.job_history h JOIN {{schema}}.jobs j ON j.id = h.job_id
  WHERE h.id > @historyId AND h.job_id > @after AND h.job_id <= @upTo AND h.from_state IS NOT NULL GROUP BY 1, 2
) c GROUP BY state, name HAVING sum(n) <> 0
