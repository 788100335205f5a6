-- Jobs held under a lease now; `updated_at` is the claim's time (heartbeats
-- and progress leave it alone).
SELECT id, name, lease_owner AS owner, locked_until AS lockedUntil, progress_json AS progress, updated_at AS since
FROM jobs INDEXED BY jobs_leased
WHERE state = {{processing}}
ORDER BY lease_owner, id
