-- Whether any grouped job is pending (one seek on jobs_grouped): a claim
-- takes the limited path (claim-limited.ts) only then, or when a name it
-- claims has a limit.
SELECT 1 FROM jobs INDEXED BY jobs_grouped WHERE state = {{pending}} AND group_key IS NOT NULL LIMIT 1
