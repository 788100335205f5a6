-- Finished jobs by age, for time-based retention; created by the first queue
-- that deletes finished jobs after a while. From then on every job enters it
-- once, when it finishes. Built over the existing rows the first time.
CREATE INDEX IF NOT EXISTS jobs_finished ON jobs (state, updated_at)
  WHERE state = {{completed}} OR state = {{dead}} OR state = {{cancelled}}
