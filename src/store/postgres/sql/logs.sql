-- A page of a job's log lines (logs.sql and logs-first.sql of the SQLite
-- store, in one statement: one snapshot): $1 job id, $2 after this line, $3
-- at most this many. A row even when the page is empty: the first line kept
-- says how many were dropped.
SELECT (SELECT min(seq) FROM {{schema}}.job_logs WHERE job_id = $1) AS first, p.*
FROM (SELECT 1) AS one LEFT JOIN LATERAL (
  SELECT seq, at, attempt, level, message, fields FROM {{schema}}.job_logs WHERE job_id = $1 AND seq > $2::bigint ORDER BY seq LIMIT $3
) AS p ON true
ORDER BY p.seq
