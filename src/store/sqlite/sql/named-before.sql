-- Finished jobs of @name in @state updated before @before, at most @limit
-- (retention-by-name-index.sql): a job name's own retention by age. A flow
-- child whose parent has yet to finish stays (the parent reads its result),
-- and so does a job whose throttle window is still open at @throttleAt.
SELECT id FROM jobs INDEXED BY jobs_finished_by_name
WHERE (state = {{completed}} OR state = {{dead}} OR state = {{cancelled}}) AND name = @name AND state = @state
  AND updated_at < @before AND lease_token IS NULL
  AND NOT coalesce(unique_kind = 'throttle' AND unique_until > @throttleAt, 0)
  AND (parent_id IS NULL OR NOT EXISTS (SELECT 1 FROM jobs p WHERE p.id = jobs.parent_id AND p.state <> {{completed}} AND p.state <> {{dead}} AND p.state <> {{cancelled}}))
LIMIT @limit
