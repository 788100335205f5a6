-- Whether a job's mailbox holds a message on $2 not yet taken.
SELECT EXISTS (SELECT 1 FROM {{schema}}.job_messages WHERE job_id = $1 AND topic = $2 AND taken_by IS NULL) AS waiting
