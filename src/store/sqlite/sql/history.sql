SELECT from_state, to_state, event, at, worker_id, lease_token, error
FROM job_history WHERE job_id = ? ORDER BY id
