-- Gives back a run's hold on its job (transition-set.sql): the run has ended
-- (or a claimed job was dropped unstarted) and something else had moved the
-- job out of the claimed state meanwhile. Only while the job is still held
-- under the run's token, at the version it was read at; a unique key goes
-- with the hold unless the job's state still guards it (@uniqueNeed).
UPDATE jobs
SET lease_owner = NULL, lease_token = NULL, locked_until = NULL,
    unique_key = CASE WHEN unique_span >= @uniqueNeed THEN unique_key END
WHERE id = @id AND lease_token = @token AND version = @version AND state <> {{processing}}
RETURNING state
