-- Kept outcomes of jobs finished before @before, at most @limit: what the
-- trim forgets next. Only among the oldest @window ids: jobs finish in
-- about the order they were created, so the oldest outcomes come first, and
-- a pass reads a bounded number of rows however many young ones the table
-- holds (a job that ran long and finished late is forgotten once it and
-- those before it have aged).
SELECT id FROM (SELECT id, finished_at FROM job_outcomes ORDER BY id LIMIT @window)
WHERE finished_at < @before LIMIT @limit
