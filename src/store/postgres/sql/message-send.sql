-- message-send.sql of the SQLite store: $1 job id, $2 topic, $3 data, $4
-- time, $5 the states that refuse messages. Answers whether it was sent,
-- and the job's state (null: no such job).
WITH sent AS (
  INSERT INTO {{schema}}.job_messages (job_id, topic, data, sent_at)
  SELECT id, $2, $3, $4 FROM {{schema}}.jobs WHERE id = $1 AND NOT (state = ANY ($5::text[]))
  RETURNING seq
)
SELECT EXISTS (SELECT 1 FROM sent) AS sent, (SELECT state FROM {{schema}}.jobs WHERE id = $1) AS state
