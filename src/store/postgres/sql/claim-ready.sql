-- A claim: calls the schema's claim_ready function (migration 009, which says
-- how it claims and why its plans are kept). $1 names, $2 now, $3 at most
-- this many jobs, $4 lease owner, $5 lease token, $6 the lease's end, $7 the
-- attempts a claim adds, $8 the history event, $9 record the claim in
-- job_history, $10 the database's time for pauses (ClaimRequest `rate`). Answers the leased jobs in claim order, then one row whose id
-- is NULL: whether grouped jobs are pending, and when the names' pauses end.
SELECT * FROM {{schema}}.claim_ready($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
