-- Finished jobs by name and age, for retention by count and a job name's
-- own retention: created by the first queue that keeps a count (or a name's
-- own age); from then on every job enters it once, when it finishes. The
-- newest N of a name in a state are then the first N entries read backwards,
-- whatever else the state holds.
CREATE INDEX IF NOT EXISTS jobs_finished_by_name ON jobs (name, state, updated_at)
  WHERE state = {{completed}} OR state = {{dead}} OR state = {{cancelled}}
