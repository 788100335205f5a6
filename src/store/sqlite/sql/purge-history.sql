DELETE FROM job_history WHERE job_id = @id
