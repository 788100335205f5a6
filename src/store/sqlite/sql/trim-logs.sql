-- Keeps a job's newest @keep log lines: the ones before are dropped.
DELETE FROM job_logs WHERE job_id = @id AND seq <= (SELECT max(seq) FROM job_logs WHERE job_id = @id) - @keep
