-- Flows (queue.enqueueFlow, queue.enqueueBatch) and durable steps (ctx.step,
-- ctx.sleep), as in the SQLite file's migration 009.
--   parent_id         the parent waiting on this job; NULL: none
--   children_left     a parent: its children not finished yet; NULL: not a parent
--   children_failed   a parent: its children that ended dead or cancelled
--   on_child_failure  a parent: 'fail' | 'continue' (the parent's policy)
ALTER TABLE {{schema}}.jobs ADD COLUMN parent_id bigint;
ALTER TABLE {{schema}}.jobs ADD COLUMN children_left integer;
ALTER TABLE {{schema}}.jobs ADD COLUMN children_failed integer;
ALTER TABLE {{schema}}.jobs ADD COLUMN on_child_failure text COLLATE "C";

CREATE INDEX jobs_children ON {{schema}}.jobs (parent_id, id) WHERE parent_id IS NOT NULL;

-- One row per completed step (ctx.step) or sleep (ctx.sleep) of a job.
CREATE TABLE {{schema}}.job_steps (
  job_id   bigint NOT NULL,
  name     text COLLATE "C" NOT NULL,
  seq      integer NOT NULL,
  result   text,
  wake_at  bigint,
  attempt  integer NOT NULL,
  at       bigint NOT NULL,
  PRIMARY KEY (job_id, name)
);
