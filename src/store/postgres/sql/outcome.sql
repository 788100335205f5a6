-- The kept outcome of a job deleted by the move that finished it (outcome.sql of the SQLite store): $1 job id.
SELECT * FROM {{schema}}.job_outcomes WHERE id = $1
