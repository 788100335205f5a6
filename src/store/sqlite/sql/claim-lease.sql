-- The second half of a claim, for the jobs claim-ready.sql found (@ids, a
-- JSON array of their ids): the job machine's claim edge, as the engine read
-- it off the machine at start-up. `{{claim.from}}`, `{{claim.to}}` and
-- `{{claim.attempts}}` are filled in with that rule's values when the
-- statement is prepared: as literals, SQLite sees at prepare time that the
-- row leaves the pending-only indexes and enters no index of another state
-- (bound as parameters, each claimed row cost ~2 µs more). Reading the rows
-- with a SELECT and updating them by id measured ~16% cheaper per claimed job
-- than one UPDATE … RETURNING, which buffers every returned row.
UPDATE jobs
SET state = {{claim.to}},
    attempts = attempts + {{claim.attempts}},
    lease_owner = @owner,
    lease_token = @token,
    locked_until = @lockedUntil,
    updated_at = @now,
    version = version + 1
WHERE id IN (SELECT value FROM json_each(@ids)) AND state = {{claim.from}}
