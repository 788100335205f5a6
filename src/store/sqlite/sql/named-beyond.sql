-- Finished jobs of @name in @state past the newest @keep, at most @limit
-- (retention-by-name-index.sql): retention by count. Read backwards along
-- the index, so a pass reads @keep + @limit entries, however large the state.
SELECT id FROM jobs INDEXED BY jobs_finished_by_name
WHERE (state = {{completed}} OR state = {{dead}} OR state = {{cancelled}}) AND name = @name AND state = @state
  AND lease_token IS NULL
ORDER BY updated_at DESC, id DESC
LIMIT @limit OFFSET @keep
