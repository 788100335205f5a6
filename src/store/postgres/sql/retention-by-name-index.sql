-- Finished jobs by name and age (retention-by-name-index.sql of the SQLite
-- store): built, without holding up writers (CONCURRENTLY), by the first
-- queue that keeps a count or a job name's own age.
CREATE INDEX CONCURRENTLY IF NOT EXISTS jobs_finished_by_name ON {{schema}}.jobs (name, state, updated_at, id)
  WHERE state = {{completed}} OR state = {{dead}} OR state = {{cancelled}}
