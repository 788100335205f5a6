-- Keeps the outcome of a job deleted as it finished (keep-outcome.sql of the
-- SQLite store): $1 job id, $2 name, $3 state, $4 born, $5 result, $6 last
-- error, $7 created at, $8 finished at.
INSERT INTO {{schema}}.job_outcomes (id, name, state, born, result, last_error, created_at, finished_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
