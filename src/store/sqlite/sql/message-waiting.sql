-- Whether a job's mailbox holds a message on @topic not yet taken.
SELECT 1 FROM job_messages WHERE job_id = @id AND topic = @topic AND taken_by IS NULL LIMIT 1
