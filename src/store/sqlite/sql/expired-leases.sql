SELECT id, name, state, attempts, last_error, ctx, retry, lease_token, lease_owner
FROM jobs
WHERE state = 'processing' AND locked_until < :now
  AND name IN (SELECT value FROM json_each(:names))
ORDER BY locked_until
LIMIT :limit
