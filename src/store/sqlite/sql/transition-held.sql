-- transition.sql for a move into processing (a custom edge): the lease stays.
-- The same compare-and-set on @version (see transition.sql).
UPDATE jobs
SET state = @to,
    attempts = @attempts,
    last_error = @lastError,
    ctx = @ctx,
    run_at = coalesce(@runAt, run_at),
    result = coalesce(@result, result),
    -- A unique key is given back when the job leaves the states its span guards (engine/unique.ts).
    unique_key = CASE WHEN unique_span >= @uniqueNeed THEN unique_key END,
    updated_at = @at,
    version = version + 1,
    indexed = 1
WHERE id = @id AND version = @version AND state = @from AND lease_token IS @token
  AND (@expiredBy IS NULL OR locked_until IS NULL OR locked_until < @expiredBy)
