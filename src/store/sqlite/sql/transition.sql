-- Compare-and-set: no row changes unless the job is still at @version (the
-- version the decision was made on: it moves on every claim and transition,
-- so a job that went away and came back to @from does not match), in @from
-- under @token. @expiredBy (a lease expiry): the lease must still have run
-- out then, not been renewed since it was read.
--
-- What the move writes is the one spec both stores share
-- (src/store/sql/transition-set.sql, put in as the set fragment).
-- `indexed = 1`: a job moved back to pending is claimable at once (migration 003).
UPDATE jobs AS j
SET {{set}},
    indexed = 1
WHERE j.id = @id AND j.version = @version AND j.state = @from AND j.lease_token IS @token
  AND (@expiredBy IS NULL OR j.locked_until IS NULL OR j.locked_until < @expiredBy)
