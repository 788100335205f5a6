UPDATE jobs SET progress = @progress
WHERE id = @id AND state = {{processing}} AND lease_token = @token
