-- Called per name: the earliest pending job that was due later than created
-- (one seek on jobs_delayed). May be in the past: it is then claimable now.
SELECT min(run_at) AS at FROM jobs INDEXED BY jobs_delayed
WHERE name = @name AND state = {{pending}} AND run_at > created_at
