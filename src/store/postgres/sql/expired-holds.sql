-- Holds that ran out (expired-holds.sql of the SQLite store): $1 now, $2 at
-- most this many.
SELECT id, lease_token AS token FROM {{schema}}.jobs
WHERE lease_token IS NOT NULL AND state <> {{processing}} AND locked_until < $1
ORDER BY locked_until LIMIT $2
