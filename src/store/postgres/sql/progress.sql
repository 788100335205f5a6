-- A running job's progress (progress.sql of the SQLite store): $1 job id,
-- $2 lease token, $3 progress. Written by the lease holder only.
UPDATE {{schema}}.jobs SET progress = $3 WHERE id = $1 AND state = {{processing}} AND lease_token = $2
