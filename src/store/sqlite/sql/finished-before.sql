-- Finished jobs of @state updated before @before, at most @limit, along the
-- retention index (retention-index.sql): what a purge deletes next. @except:
-- a JSON array of names whose own retention rules that state, or null. A
-- flow child whose parent has yet to finish stays: the parent reads its result.
-- So does a job whose throttle window is still open at @throttleAt (the
-- database's time): the window lives in its row.
SELECT id FROM jobs INDEXED BY jobs_finished
WHERE (state = {{completed}} OR state = {{dead}} OR state = {{cancelled}}) AND state = @state AND updated_at < @before
  AND lease_token IS NULL AND NOT coalesce(unique_kind = 'throttle' AND unique_until > @throttleAt, 0)
  AND (@except IS NULL OR name NOT IN (SELECT value FROM json_each(@except)))
  AND (parent_id IS NULL OR NOT EXISTS (SELECT 1 FROM jobs p WHERE p.id = jobs.parent_id AND p.state <> {{completed}} AND p.state <> {{dead}} AND p.state <> {{cancelled}}))
LIMIT @limit
