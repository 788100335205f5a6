-- transition.sql for a move into processing (a custom edge): the lease stays.
-- Parameters as in transition.sql.
UPDATE jobs
SET state = ?,
    attempts = ?,
    last_error = ?,
    ctx = ?,
    run_at = coalesce(?, run_at),
    result = coalesce(?, result),
    updated_at = ?,
    indexed = 1
WHERE id = ? AND state = ? AND lease_token IS ?
