-- Up to @limit due jobs of one group in claim order (claim-group-walk.sql
-- found the group): the columns claim-ready.sql reads.
SELECT {{ready.columns}}, unique_span
FROM jobs INDEXED BY jobs_grouped
WHERE state = {{pending}} AND group_key = @group
  AND run_at <= @now AND (lease_token IS NULL OR locked_until < @now)
  AND name IN (SELECT value FROM json_each(@names))
ORDER BY priority DESC, run_at, id
LIMIT @limit
