-- A move whose state is kept for 0 ms (retention 0): the job is deleted under
-- the same compare-and-set as transition-move.sql. $1 job id, $2 from, $3
-- lease token, $4 the version, $5 for a lease expiry: the time the lease must
-- still have run out at, $6 the database's time: a job whose throttle window
-- is still open then stays (the window lives in its row: the caller moves it
-- instead). Its steps and log lines go after it (purge-*.sql); its outcome is
-- kept (keep-outcome.sql) from what this answers, and its history stays with it.
DELETE FROM {{schema}}.jobs j
WHERE j.id = $1 AND j.version = $4::int AND j.state = $2 AND j.lease_token IS NOT DISTINCT FROM $3
  AND ($5::bigint IS NULL OR j.locked_until IS NULL OR j.locked_until < $5::bigint)
  AND NOT coalesce(j.unique_kind = 'throttle' AND j.unique_until > $6::bigint, false)
RETURNING j.name, j.result, j.created_at, CASE WHEN j.children_left IS NOT NULL THEN {{waitingChildren}} ELSE {{pending}} END AS born
