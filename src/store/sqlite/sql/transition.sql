-- Compare-and-set: no row changes unless the job is still in :from under :token.
UPDATE jobs
SET state = :to,
    attempts = :attempts,
    last_error = :lastError,
    ctx = :ctx,
    run_at = coalesce(:runAt, run_at),
    result = coalesce(:result, result),
    lease_owner = CASE WHEN :to = 'processing' THEN lease_owner END,
    lease_token = CASE WHEN :to = 'processing' THEN lease_token END,
    locked_until = CASE WHEN :to = 'processing' THEN locked_until END,
    updated_at = :at
WHERE id = :id AND state = :from AND lease_token IS :token
