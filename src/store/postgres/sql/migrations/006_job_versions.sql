-- A job's version, as in the SQLite file's migration 010: +1 on every claim
-- and every move of its state. Every compare-and-set names the version it
-- read, so a write decided on an old read of a job never lands once the job
-- has moved on, even when it came back to the same state with no lease.
ALTER TABLE {{schema}}.jobs ADD COLUMN version integer NOT NULL DEFAULT 0;
