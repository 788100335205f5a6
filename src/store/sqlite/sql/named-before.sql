-- Finished jobs of @name in @state updated before @before, at most @limit
-- (retention-by-name-index.sql): a job name's own retention by age.
SELECT id FROM jobs INDEXED BY jobs_finished_by_name
WHERE (state = {{completed}} OR state = {{dead}} OR state = {{cancelled}}) AND name = @name AND state = @state
  AND updated_at < @before AND lease_token IS NULL
LIMIT @limit
