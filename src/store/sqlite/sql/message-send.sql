-- A message into a job's mailbox (queue.signal): only while the job exists
-- and is in none of @refused (its machine's finished states, as JSON), and
-- its mailbox holds fewer than @room messages not yet taken; one already
-- sent under @key (not null) is not sent again.
INSERT INTO job_messages (job_id, topic, data, key, sent_at)
SELECT id, @topic, @data, @key, @at FROM jobs
WHERE id = @id AND state NOT IN (SELECT value FROM json_each(@refused))
  AND (SELECT count(*) FROM job_messages WHERE job_id = @id AND taken_by IS NULL) < @room
ON CONFLICT (job_id, key) WHERE key IS NOT NULL DO NOTHING
