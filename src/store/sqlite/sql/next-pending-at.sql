-- Called per name: the earliest pending job that was due later than created
-- (one seek on jobs_delayed). May be in the past: it is then claimable now.
-- A pending job a run still holds (run-holds.ts) is not claimable before its
-- hold runs out: its time is then the later of the two (the run's release
-- wakes the claim loops sooner). Without it, an idle loop would look for the
-- held job again and again, a write transaction each time.
SELECT min(at) AS at FROM (
  SELECT min(run_at) AS at FROM jobs INDEXED BY jobs_delayed
  WHERE name = @name AND state = {{pending}} AND run_at > created_at AND lease_token IS NULL
  UNION ALL
  SELECT min(max(run_at, locked_until)) AS at FROM jobs INDEXED BY jobs_held
  WHERE lease_token IS NOT NULL AND state <> {{processing}} AND state = {{pending}} AND name = @name
)
