-- One statement claims up to :limit due jobs: pending → processing (the job
-- machine's `job.claim` edge, checked against the machine at start-up).
-- INDEXED BY: walking jobs_ready in order avoids sorting every pending row.
UPDATE jobs
SET state = 'processing',
    attempts = attempts + 1,
    lease_owner = :owner,
    lease_token = :token,
    locked_until = :lockedUntil,
    updated_at = :now
WHERE id IN (
  SELECT id FROM jobs INDEXED BY jobs_ready
  WHERE state = 'pending'
    AND run_at <= :now
    AND name IN (SELECT value FROM json_each(:names))
  ORDER BY priority DESC, run_at, id
  LIMIT :limit
)
RETURNING id, name, payload, attempts, last_error, ctx, retry, timeout_ms, priority, run_at
