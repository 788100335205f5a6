-- A deleted job's log lines (one probe of the primary key when it logged none).
DELETE FROM job_logs WHERE job_id = @id
