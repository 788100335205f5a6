-- Jobs deleted without a transition (retention), counted: a reader that keeps
-- counts from the history (the dashboard) learns from one row that some went.
INSERT INTO queue_meta (key, value) VALUES ('deleted', 0);
