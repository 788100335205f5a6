-- The outcome of a finished job retention 0 deletes after its finishing move
-- (keep-outcome.sql, with the job as it stands): @id.
INSERT INTO job_outcomes (id, name, state, born, result, last_error, created_at, finished_at)
SELECT id, name, state, CASE WHEN children_left IS NOT NULL THEN {{waitingChildren}} ELSE {{pending}} END,
  result, last_error, created_at, updated_at
FROM jobs WHERE id = @id
