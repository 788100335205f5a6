-- Whether the job is still leased under @token (after a save-step that wrote nothing).
SELECT 1 FROM jobs WHERE id = @id AND state = {{processing}} AND lease_token = @token
