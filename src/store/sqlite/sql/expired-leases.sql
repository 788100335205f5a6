-- Processing jobs whose lease ran out, and processing jobs with no lease at
-- all (no worker can ever settle those: they are as good as expired).
SELECT *
FROM jobs INDEXED BY jobs_leased
WHERE state = {{processing}} AND (locked_until IS NULL OR locked_until < @now)
  AND name IN (SELECT value FROM json_each(@names))
ORDER BY locked_until
LIMIT @limit
