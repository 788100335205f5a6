-- queue.clean on a state jobs leave (pending, failed, sleeping, a custom
-- one): its jobs (of one name, when @name is set) that entered it before
-- @before. Never a leased job (its run goes on), nor a flow child (its parent
-- waits for it to finish: cancel it instead).
SELECT id FROM jobs
WHERE state = @state AND updated_at <= @before AND (@name IS NULL OR name = @name)
  AND lease_token IS NULL AND parent_id IS NULL
LIMIT @limit
