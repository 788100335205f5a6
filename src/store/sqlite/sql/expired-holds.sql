-- Holds that ran out (run-holds.ts): jobs moved on while a run held them,
-- whose run died before it gave the hold back. The lease sweep gives them
-- back (release-hold.sql), keys and all.
SELECT id, lease_token AS token FROM jobs INDEXED BY jobs_held
WHERE lease_token IS NOT NULL AND state <> {{processing}} AND locked_until < @now
ORDER BY locked_until
LIMIT @limit
