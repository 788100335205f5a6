-- A job's first log line kept: the lines before it were dropped.
SELECT min(seq) FROM job_logs WHERE job_id = @id
