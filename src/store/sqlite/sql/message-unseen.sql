-- Jobs of these names (@names, JSON) waiting for a message (waiting-message)
-- whose mailbox holds one on the topic they wait on, not yet taken: a wake
-- that was missed. At most @limit. Read from the messages not yet taken
-- (few, and indexed), never by a walk of the jobs (CROSS JOIN keeps that order).
SELECT j.id, m.topic FROM job_messages m INDEXED BY job_messages_box
CROSS JOIN jobs j ON j.id = m.job_id
WHERE m.taken_by IS NULL AND j.state = 'waiting-message' AND m.topic = json_extract(j.ctx, '$.waitTopic')
  AND j.name IN (SELECT value FROM json_each(@names))
GROUP BY j.id
LIMIT @limit
