-- The outcome of a job deleted by the move that finished it (retention 0):
-- kept for a while (retention `outcome`, default a minute) so that every
-- `result()` waiting in any process, and every reader of the change feed,
-- still learns how it ended. The job's history rows stay as long: the feed
-- reads the job's creation from here and its moves from the history.
-- `born`: the state the job was created in (the feed's creation event).
CREATE TABLE job_outcomes (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  state TEXT NOT NULL,
  born TEXT NOT NULL,
  result TEXT,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  finished_at INTEGER NOT NULL
);
