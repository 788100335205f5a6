SELECT id FROM jobs INDEXED BY jobs_finished
WHERE (state = {{completed}} OR state = {{dead}} OR state = {{cancelled}}) AND state = @state AND updated_at < @before
LIMIT @limit
