-- A job's version: +1 on every claim and every move of its state (engine
-- transitions, a flow parent's move, a debounce's new payload and run time).
-- Every compare-and-set names the version it read, so a write decided on an
-- old read of a job never lands once the job has moved on, even when it has
-- come back to the same state (failed → pending → processing → failed) with
-- no lease to tell the two apart.
ALTER TABLE jobs ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
