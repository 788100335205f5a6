-- The name and group pauses in force (RateLimitedError): what a claim loop
-- checks the jobs it claimed ahead of time against before starting them.
SELECT kind, key, paused_until AS "until" FROM job_limits
WHERE kind IN ('name', 'group') AND paused_until > @now
