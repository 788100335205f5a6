-- The outcome of a job deleted by the move that finished it (retention 0):
-- kept for a while so that every result() waiting in any process, and every
-- reader of the change feed, still learns how it ended (the SQLite store's
-- migration 016). The job's history rows stay as long.
CREATE TABLE {{schema}}.job_outcomes (
  id bigint PRIMARY KEY,
  name text NOT NULL,
  state text NOT NULL,
  born text NOT NULL,
  result text,
  last_error text,
  created_at bigint NOT NULL,
  finished_at bigint NOT NULL
);
