-- Whether a job's mailbox holds a message sent under $2 (taken or not): read
-- after a send that found its key taken by a commit its snapshot did not see.
SELECT EXISTS (SELECT 1 FROM {{schema}}.job_messages WHERE job_id = $1 AND key = $2) AS found
