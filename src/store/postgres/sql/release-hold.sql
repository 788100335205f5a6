-- Gives back a run's hold on its job (release-hold.sql of the SQLite store):
-- $1 job id, $2 the run's lease token, $3 the version the job was read at,
-- $4 the unique key's need in its state. Answers the job's state.
UPDATE {{schema}}.jobs
SET lease_owner = NULL, lease_token = NULL, locked_until = NULL,
    unique_key = CASE WHEN unique_span >= $4::int THEN unique_key END
WHERE id = $1 AND lease_token = $2 AND version = $3::int AND state <> {{processing}}
RETURNING state
