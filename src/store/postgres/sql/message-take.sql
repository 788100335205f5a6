-- message-take.sql of the SQLite store, with the step's insert: $1 job id,
-- $2 lease token, $3 topic, $4 step name, $5 attempt, $6 time. The job's row
-- is locked under its lease; the oldest message on the topic not yet taken
-- is marked taken by the step and recorded as it, unless the step is
-- recorded already. Answers whether the lease holds, the message taken
-- (null: none), and the step as recorded before (a replay: null when not).
WITH held AS (
  SELECT id FROM {{schema}}.jobs WHERE id = $1 AND state = {{processing}} AND lease_token = $2
  FOR NO KEY UPDATE
), taken AS (
  UPDATE {{schema}}.job_messages SET taken_by = $4
  WHERE seq = (
    SELECT m.seq FROM {{schema}}.job_messages m
    WHERE m.job_id = $1 AND m.topic = $3 AND m.taken_by IS NULL AND EXISTS (SELECT 1 FROM held)
      AND NOT EXISTS (SELECT 1 FROM {{schema}}.job_steps WHERE job_id = $1 AND name = $4)
    ORDER BY m.seq LIMIT 1
    FOR UPDATE
  )
  RETURNING data
), saved AS (
  INSERT INTO {{schema}}.job_steps (job_id, name, seq, result, wake_at, attempt, at)
  SELECT $1, $4, coalesce((SELECT max(seq) FROM {{schema}}.job_steps WHERE job_id = $1), 0) + 1, '{"message":' || t.data || '}', NULL, $5, $6
  FROM taken t
)
SELECT EXISTS (SELECT 1 FROM held) AS held, (SELECT data FROM taken) AS data, r.result AS recorded, r.attempt AS recorded_attempt
FROM (SELECT 1) AS one LEFT JOIN {{schema}}.job_steps r ON r.job_id = $1 AND r.name = $4
