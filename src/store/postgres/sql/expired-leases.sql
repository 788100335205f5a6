-- Leases that ran out (expired-leases.sql of the SQLite store): $1 names,
-- $2 now, $3 at most this many, oldest first. A processing job with no lease
-- at all is as good as expired (SQLite sorts NULL first, as here).
SELECT * FROM {{schema}}.jobs
WHERE state = {{processing}} AND (locked_until IS NULL OR locked_until < $2) AND name = ANY($1::text[])
ORDER BY locked_until NULLS FIRST, id LIMIT $3
