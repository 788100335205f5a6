-- Compare-and-set: no row changes unless the job is still at @version (the
-- version the decision was made on: it moves on every claim and transition,
-- so a job that went away and came back to @from does not match), in @from
-- under @token. The job leaves its lease behind (any state but processing).
-- @expiredBy (a lease expiry): the lease must still have run out then, not
-- been renewed since it was read.
-- `indexed = 1`: a job moved back to pending is claimable at once (migration 003).
UPDATE jobs
SET state = @to,
    attempts = @attempts,
    last_error = @lastError,
    ctx = @ctx,
    run_at = coalesce(@runAt, run_at),
    result = coalesce(@result, result),
    lease_owner = NULL,
    lease_token = NULL,
    locked_until = NULL,
    -- A unique key is given back when the job leaves the states its span guards (engine/unique.ts).
    unique_key = CASE WHEN unique_span >= @uniqueNeed THEN unique_key END,
    updated_at = @at,
    version = version + 1,
    indexed = 1
WHERE id = @id AND version = @version AND state = @from AND lease_token IS @token
  AND (@expiredBy IS NULL OR locked_until IS NULL OR locked_until < @expiredBy)
