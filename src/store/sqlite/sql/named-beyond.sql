-- Finished jobs of @name in @state past the newest @keep, at most @limit
-- (retention-by-name-index.sql): retention by count. Read backwards along
-- the index, so a pass reads @keep + @limit entries, however large the state.
-- A job a run still holds, a flow child whose parent has yet to finish, or a
-- job whose throttle window is still open at @throttleAt counts among the
-- newest but stays (the caller drops those marked `spared`).
SELECT id, lease_token IS NOT NULL
  OR coalesce(unique_kind = 'throttle' AND unique_until > @throttleAt, 0) OR (parent_id IS NOT NULL AND EXISTS (
    SELECT 1 FROM jobs p WHERE p.id = jobs.parent_id AND p.state <> {{completed}} AND p.state <> {{dead}} AND p.state <> {{cancelled}})) AS spared
FROM jobs INDEXED BY jobs_finished_by_name
WHERE (state = {{completed}} OR state = {{dead}} OR state = {{cancelled}}) AND name = @name AND state = @state
ORDER BY updated_at DESC, id DESC
LIMIT @limit OFFSET @keep
