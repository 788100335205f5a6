-- SQLite gives a new row the newest id + 1: once the newest history rows are
-- deleted, their ids would be handed out again, and a reader that had read up
-- to them (the dashboard's change feed) would skip the new rows. A row of job
-- 0 keeps the newest id taken; it belongs to no job, so nothing reads it.
INSERT INTO job_history (id, job_id, from_state, to_state, event, at) VALUES (@id, 0, NULL, '', 'history.purged', @at)
