-- Whether a job's mailbox holds a message on @topic.
SELECT 1 FROM job_messages WHERE job_id = @id AND topic = @topic LIMIT 1
