-- One move, a compare-and-set (transition.sql of the SQLite store), for a
-- batch that names a job twice, run request by request: $1 job id, $2 from,
-- $3 lease token, $4 to, $5 attempts, $6 last error, $7 context, $8 run at,
-- $9 result, $10 now, $11 the unique key's need in the new state, $12 the
-- version the move was decided on, $13 for a lease expiry: the time the lease
-- must still have run out at, $14 whether the move keeps the lease as a
-- run's hold (a move not made by the run that holds the job).
--
-- What it writes is the spec both stores share (src/store/sql/transition-set.sql).
UPDATE {{schema}}.jobs j SET {{set}}
WHERE j.id = $1 AND j.version = $12::int AND j.state = $2 AND j.lease_token IS NOT DISTINCT FROM $3
  AND ($13::bigint IS NULL OR j.locked_until IS NULL OR j.locked_until < $13::bigint)
