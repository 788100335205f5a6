-- transition.sql for a move into processing (a custom edge): the lease stays.
UPDATE jobs
SET state = @to,
    attempts = @attempts,
    last_error = @lastError,
    ctx = @ctx,
    run_at = coalesce(@runAt, run_at),
    result = coalesce(@result, result),
    updated_at = @at,
    indexed = 1
WHERE id = @id AND state = @from AND lease_token IS @token
