-- A parent leaves its waiting state by the flow rule (compare-and-set on the state).
-- A parent sent back to pending is due now, and claimable at once (`indexed = 1`).
UPDATE jobs
SET state = @to,
    last_error = coalesce(@error, last_error),
    run_at = CASE WHEN @to = {{pending}} THEN @at ELSE run_at END,
    updated_at = @at,
    version = version + 1,
    indexed = 1
WHERE id = @id AND state = @from
