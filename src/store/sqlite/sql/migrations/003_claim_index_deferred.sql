-- A job committed on its own (an awaited enqueue, one commit per job) no
-- longer enters the claim index in that commit: writing the index page was
-- about a third of such a commit's cost. It is written with `indexed = 0`, and
-- the next claim, in whichever process, indexes every such job in one
-- statement before it reads the index (index-new.sql). Jobs inserted in
-- batches, and every job a transition moves, are indexed at once as before.
ALTER TABLE jobs ADD COLUMN indexed INTEGER NOT NULL DEFAULT 1;
DROP INDEX jobs_ready;
CREATE INDEX jobs_ready ON jobs (priority DESC, run_at, id) WHERE state = {{pending}} AND indexed = 1;

-- Every job with an id up to `indexed_upto` is indexed; the claim looks above it only.
CREATE TABLE queue_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO queue_meta (key, value) VALUES ('indexed_upto', coalesce((SELECT max(id) FROM jobs), 0));
