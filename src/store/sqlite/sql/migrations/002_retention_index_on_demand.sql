-- Finished jobs by age exist for retention only: every job entered this index
-- when it finished, paid for by queues that never delete anything. It is now
-- created when a queue with a time-based retention opens the file
-- (retention-index.sql).
DROP INDEX IF EXISTS jobs_finished;
