-- Finished jobs of @state updated before @before, at most @limit, along the
-- retention index (retention-index.sql): what a purge deletes next.
SELECT id FROM jobs INDEXED BY jobs_finished
WHERE (state = {{completed}} OR state = {{dead}} OR state = {{cancelled}}) AND state = @state AND updated_at < @before
  AND lease_token IS NULL
LIMIT @limit
