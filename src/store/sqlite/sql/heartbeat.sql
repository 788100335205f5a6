UPDATE jobs SET locked_until = max(locked_until, @lockedUntil)
WHERE id = @id AND state = {{processing}} AND lease_token = @token
