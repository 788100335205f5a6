-- A deleted job's steps (one probe of the primary key when it had none).
DELETE FROM job_steps WHERE job_id = @id
