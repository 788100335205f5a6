-- Progress as any JSON value, each update a change in the feed (the SQLite
-- store's migration 019): jobs.progress_json the latest value as JSON text
-- (the float8 column `progress` is no longer written), job_history.data a
-- progress row's value ('job.progress', not a move).
ALTER TABLE {{schema}}.jobs ADD COLUMN progress_json text;
UPDATE {{schema}}.jobs SET progress_json = progress::text WHERE progress IS NOT NULL;
ALTER TABLE {{schema}}.job_history ADD COLUMN data text;
