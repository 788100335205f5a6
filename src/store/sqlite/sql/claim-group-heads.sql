-- Up to @limit due jobs of one group in claim order (claim-group-walk.sql
-- found the group).
SELECT id, name, payload, key, priority, run_at, attempts, last_error, ctx, retry, timeout_ms, created_at, unique_span, group_key, parent_id, version, trace_context
FROM jobs INDEXED BY jobs_grouped
WHERE state = {{pending}} AND group_key = @group
  AND run_at <= @now AND (lease_token IS NULL OR locked_until < @now)
  AND name IN (SELECT value FROM json_each(@names))
ORDER BY priority DESC, run_at, id
LIMIT @limit
