-- Paused job names (queue.pause): a claim in any process sharing the file
-- reads this table inside its transaction and leaves paused names alone.
-- The empty name pauses the whole queue (a job name is never empty).
CREATE TABLE paused_names (name TEXT PRIMARY KEY, paused_at INTEGER NOT NULL) WITHOUT ROWID;
