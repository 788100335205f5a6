INSERT INTO job_history (job_id, from_state, to_state, event, at, worker_id, lease_token, error)
VALUES (@id, @from, @to, @event, @at, @workerId, @token, @error)
