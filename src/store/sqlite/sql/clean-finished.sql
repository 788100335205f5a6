-- queue.clean on a finished state: its jobs (of one name, when @name is set)
-- that finished before @before, along the retention index (retention-index.sql).
SELECT id FROM jobs INDEXED BY jobs_finished
WHERE (state = {{completed}} OR state = {{dead}} OR state = {{cancelled}}) AND state = @state AND updated_at <= @before
  AND (@name IS NULL OR name = @name) AND lease_token IS NULL
LIMIT @limit
