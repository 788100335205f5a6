-- The kept outcome of a job deleted by the move that finished it (job_outcomes).
SELECT * FROM job_outcomes WHERE id = @id
