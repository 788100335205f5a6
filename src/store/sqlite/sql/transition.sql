-- Compare-and-set: no row changes unless the job is still in `from` under
-- `token`. The job leaves its lease behind (any state but processing).
-- Positional parameters (cheaper to bind than named ones on this hot path):
--   to, attempts, last_error, ctx, run_at (null keeps it), result (null keeps it), at, id, from, token
-- `indexed = 1`: a job moved back to pending is claimable at once (migration 003).
UPDATE jobs
SET state = ?,
    attempts = ?,
    last_error = ?,
    ctx = ?,
    run_at = coalesce(?, run_at),
    result = coalesce(?, result),
    lease_owner = NULL,
    lease_token = NULL,
    locked_until = NULL,
    updated_at = ?,
    indexed = 1
WHERE id = ? AND state = ? AND lease_token IS ?
