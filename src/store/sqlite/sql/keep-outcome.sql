-- Finishing a job whose retention is 0: keeps its outcome (migration 016)
-- under the compare-and-set of transition.sql, read from the row the delete
-- then takes (delete-job.sql). @state, @result, @lastError: how the move
-- ended it; @state null: as the row says, finished when it last moved (a held
-- job given back). born: the state it was created in, as feed-jobs.sql shows it.
-- A job whose throttle window is still open at @throttleAt (the database's
-- time) is not taken: the window lives in its row (the caller moves it instead).
INSERT INTO job_outcomes (id, name, state, born, result, last_error, created_at, finished_at)
SELECT id, name, coalesce(@state, state), CASE WHEN children_left IS NOT NULL THEN {{waitingChildren}} ELSE {{pending}} END,
  coalesce(@result, result), CASE WHEN @state IS NULL THEN last_error ELSE @lastError END, created_at,
  CASE WHEN @state IS NULL THEN updated_at ELSE @at END
FROM jobs WHERE id = @id AND version = @version AND state = @from AND lease_token IS @token
  AND (@expiredBy IS NULL OR locked_until IS NULL OR locked_until < @expiredBy)
  AND NOT coalesce(unique_kind = 'throttle' AND unique_until > @throttleAt, 0)
