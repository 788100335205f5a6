-- Jobs of these names (@names, JSON) waiting for a message (waiting-message)
-- whose mailbox holds one on the topic they wait on, not yet taken: a wake
-- that was missed. At most @limit.
SELECT j.id, m.topic FROM jobs j
JOIN job_messages m ON m.job_id = j.id AND m.taken_by IS NULL AND m.topic = json_extract(j.ctx, '$.waitTopic')
WHERE j.state = 'waiting-message' AND j.name IN (SELECT value FROM json_each(@names))
GROUP BY j.id
LIMIT @limit
