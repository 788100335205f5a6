-- A page of a job's log lines, in order: after @after, at most @limit.
SELECT seq, at, attempt, level, message, fields FROM job_logs WHERE job_id = @id AND seq > @after ORDER BY seq LIMIT @limit
