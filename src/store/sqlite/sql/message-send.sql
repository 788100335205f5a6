-- A message into a job's mailbox (queue.signal): only while the job exists
-- and is in none of @refused (its machine's finished states, as JSON).
INSERT INTO job_messages (job_id, topic, data, sent_at)
SELECT id, @topic, @data, @at FROM jobs
WHERE id = @id AND state NOT IN (SELECT value FROM json_each(@refused))
