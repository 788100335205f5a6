-- Called per (state, name) for delayed states: a seek on jobs_waiting.
SELECT *
FROM jobs INDEXED BY jobs_waiting
WHERE state = @state AND name = @name AND run_at <= @now
  AND state <> {{pending}} AND state <> {{processing}} AND state <> {{completed}} AND state <> {{dead}} AND state <> {{cancelled}}
ORDER BY run_at
LIMIT @limit
