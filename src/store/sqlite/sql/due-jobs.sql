-- Called per (state, name): a seek on jobs_state.
SELECT id, name, state, attempts, last_error, ctx, retry, lease_token, lease_owner
FROM jobs
WHERE state = :state AND name = :name AND run_at <= :now
ORDER BY run_at
LIMIT :limit
