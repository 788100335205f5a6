-- Cron schedules (queue.schedule, defineJob's `schedule`), one per job name.
-- Every started queue fires them; `last_slot` is the latest slot any process
-- fired or skipped (ms), so a restarted process knows which slots it missed.
-- A slot's job carries the key `cron:<name>:<slot>`: processes racing for a
-- slot make one job.
CREATE TABLE schedules (
  name       TEXT PRIMARY KEY,
  cron       TEXT NOT NULL,
  tz         TEXT,
  payload    TEXT NOT NULL,
  missed     TEXT NOT NULL,
  last_slot  INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
