-- append-logs.sql then trim-logs.sql of the SQLite store, for a batch of
-- lines: $1 job ids, $2 attempts, $3 each line's place within its job's part
-- of the batch, $4 times, $5 levels, $6 messages, $7 fields (JSON text), one
-- array each; $8 the lines a job keeps. Only lines that stay are inserted,
-- and the trim deletes the stored lines that no longer do.
--
-- Planned per call (prepared.ts): it finds jobs by an array of ids.
/* planned per call */ WITH l AS (
  SELECT * FROM unnest($1::bigint[], $2::int[], $3::int[], $4::bigint[], $5::text[], $6::text[], $7::text[])
    AS u (job_id, attempt, rel, at, level, message, fields)
), top AS (
  SELECT j.id, coalesce((SELECT max(seq) FROM {{schema}}.job_logs g WHERE g.job_id = j.id), 0) AS seq, m.n
  FROM {{schema}}.jobs j JOIN (SELECT job_id, max(rel) AS n FROM l GROUP BY job_id) m ON m.job_id = j.id
), added AS (
  INSERT INTO {{schema}}.job_logs (job_id, seq, at, attempt, level, message, fields)
  SELECT l.job_id, top.seq + l.rel, l.at, l.attempt, l.level, l.message, l.fields
  FROM l JOIN top ON top.id = l.job_id WHERE l.rel > top.n - $8::int
)
DELETE FROM {{schema}}.job_logs g USING top WHERE g.job_id = top.id AND g.seq <= top.seq + top.n - $8::int
