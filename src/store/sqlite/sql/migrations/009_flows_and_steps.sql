-- Flows (queue.enqueueFlow, queue.enqueueBatch) and durable steps (ctx.step, ctx.sleep).
--   parent_id         the parent waiting on this job; NULL: none
--   children_left     a parent: its children not finished yet; NULL: not a parent
--   children_failed   a parent: its children that ended dead or cancelled
--   on_child_failure  a parent: 'fail' | 'continue' (the parent's policy)
ALTER TABLE jobs ADD COLUMN parent_id INTEGER;
ALTER TABLE jobs ADD COLUMN children_left INTEGER;
ALTER TABLE jobs ADD COLUMN children_failed INTEGER;
ALTER TABLE jobs ADD COLUMN on_child_failure TEXT;

-- ctx.children(), and the counts an onComplete job reads: only children pay for it.
CREATE INDEX jobs_children ON jobs (parent_id, id) WHERE parent_id IS NOT NULL;

-- One row per completed step of a job (ctx.step) or sleep (ctx.sleep):
--   seq      the order in which the job's steps completed (1, 2, …)
--   result   JSON text of the step's result; NULL: undefined
--   wake_at  a sleep: when it ends, ms since the epoch; NULL: a step
--   attempt  the attempt that completed it
CREATE TABLE job_steps (
  job_id   INTEGER NOT NULL,
  name     TEXT NOT NULL,
  seq      INTEGER NOT NULL,
  result   TEXT,
  wake_at  INTEGER,
  attempt  INTEGER NOT NULL,
  at       INTEGER NOT NULL,
  PRIMARY KEY (job_id, name)
) WITHOUT ROWID;
