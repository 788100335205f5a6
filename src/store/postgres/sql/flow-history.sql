-- A parent's move in the history: $1 parent id, $2 from, $3 to, $4 event, $5 at, $6 error.
INSERT INTO {{schema}}.job_history (job_id, from_state, to_state, event, at, error) VALUES ($1, $2, $3, $4, $5, $6)
