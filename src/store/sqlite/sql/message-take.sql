-- The oldest message on @topic in a job's mailbox, taken by the wait step
-- @name (ctx.waitFor) while the job's run holds it under @token, unless that
-- step is already recorded (it took its message then). Marked taken here
-- (kept, so a sender's key still finds it); the caller records the step in
-- the same transaction.
UPDATE job_messages SET taken_by = @name
WHERE seq = (
  SELECT m.seq FROM job_messages m
  WHERE m.job_id = @id AND m.topic = @topic AND m.taken_by IS NULL
    AND EXISTS (SELECT 1 FROM jobs WHERE id = @id AND state = {{processing}} AND lease_token = @token)
    AND NOT EXISTS (SELECT 1 FROM job_steps WHERE job_id = @id AND name = @name)
  ORDER BY m.seq LIMIT 1
)
RETURNING data
