SELECT id, name, state, attempts, last_error, ctx, retry, lease_token, lease_owner
FROM jobs INDEXED BY jobs_leased
WHERE state = 'processing' AND locked_until < :now
  AND name IN (SELECT value FROM json_each(:names))
ORDER BY locked_until
LIMIT :limit
