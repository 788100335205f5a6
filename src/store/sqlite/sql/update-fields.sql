-- queue.update: the new payload and priority of a job whose move (job.update)
-- landed in this same transaction (transition.ts); NULL keeps a field.
UPDATE jobs SET payload = coalesce(@payload, payload), priority = coalesce(@priority, priority) WHERE id = @id
