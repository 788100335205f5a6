-- One transition in the history (insert-history.sql of the SQLite store): $1
-- job id, $2 from, $3 to, $4 event, $5 candidate, $6 at, $7 worker, $8 lease
-- token, $9 error.
INSERT INTO {{schema}}.job_history (job_id, from_state, to_state, event, candidate, at, worker_id, lease_token, error)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
