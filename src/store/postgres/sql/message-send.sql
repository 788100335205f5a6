-- message-send.sql of the SQLite store: $1 job id, $2 topic, $3 data, $4
-- time, $5 the states that refuse messages, $6 the sender's key (or null),
-- $7 the most messages not yet taken a mailbox holds.
-- Answers whether it was sent, whether its key was sent before, and the
-- job's state (null: no such job).
WITH sent AS (
  INSERT INTO {{schema}}.job_messages (job_id, topic, data, key, sent_at)
  SELECT id, $2, $3, $6, $4 FROM {{schema}}.jobs WHERE id = $1 AND NOT (state = ANY ($5::text[]))
    AND (SELECT count(*) FROM {{schema}}.job_messages WHERE job_id = $1 AND taken_by IS NULL) < $7
  ON CONFLICT (job_id, key) WHERE key IS NOT NULL DO NOTHING
  RETURNING seq
)
SELECT EXISTS (SELECT 1 FROM sent) AS sent,
  $6::text IS NOT NULL AND EXISTS (SELECT 1 FROM {{schema}}.job_messages WHERE job_id = $1 AND key = $6) AS known,
  (SELECT state FROM {{schema}}.jobs WHERE id = $1) AS state
