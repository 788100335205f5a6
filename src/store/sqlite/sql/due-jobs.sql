SELECT id, name, state, attempts, last_error, ctx, retry, lease_token, lease_owner
FROM jobs
WHERE state IN (SELECT value FROM json_each(:states)) AND run_at <= :now
  AND name IN (SELECT value FROM json_each(:names))
ORDER BY run_at
LIMIT :limit
