-- Jobs deleted without a transition (retention), counted: a reader that keeps
-- counts from the history (the dashboard) learns from one row that some went.
INSERT INTO queue_meta (key, value) VALUES ('deleted', 0);

-- Which of an event's guarded candidates with the same target a transition
-- took, when not the first (2, 3, …): the edge `machineGraph` numbers
-- `from:event:to#2`. NULL for the first or only one, as in every older row.
ALTER TABLE job_history ADD COLUMN candidate INTEGER;
