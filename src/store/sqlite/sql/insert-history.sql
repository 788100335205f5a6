-- One transition in the history.
INSERT INTO job_history (job_id, from_state, to_state, event, candidate, at, worker_id, lease_token, error)
VALUES (@id, @from, @to, @event, @candidate, @at, @workerId, @token, @error)
