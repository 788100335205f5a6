-- Progress as any JSON value (ctx.progress), each update a change in the
-- feed (watch(), the live feed, the page):
--   jobs.progress_json  the job's latest progress, JSON text (the REAL
--                       column `progress` held a number before, and is no
--                       longer written)
--   job_history.data    a progress row's value, JSON text. A progress update
--                       is a change of the feed but not a move: its row's
--                       event is 'job.progress', from and to the state it
--                       ran in, and the job's version stays.
ALTER TABLE jobs ADD COLUMN progress_json TEXT;
UPDATE jobs SET progress_json = CAST(progress AS TEXT) WHERE progress IS NOT NULL;
ALTER TABLE job_history ADD COLUMN data TEXT;
