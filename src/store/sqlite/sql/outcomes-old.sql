-- Kept outcomes of jobs finished before @before, at most @limit: what the
-- trim forgets next. Along the primary key: jobs finish in about the order
-- they were created, so the oldest outcomes come first and the few younger
-- ones met on the way (a job that ran long) are stepped over.
SELECT id FROM job_outcomes WHERE finished_at < @before LIMIT @limit
