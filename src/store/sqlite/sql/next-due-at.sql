-- Called per (state, name) for delayed states: min() over an equality prefix of
-- jobs_waiting is one seek. May be in the past for a delayed state that is due
-- but not yet promoted.
SELECT min(run_at) AS at FROM jobs INDEXED BY jobs_waiting
WHERE state = @state AND name = @name
  AND state <> {{pending}} AND state <> {{processing}} AND state <> {{completed}} AND state <> {{dead}} AND state <> {{cancelled}}
