-- Cron schedules, one per job name (the SQLite store's 007_cron_schedules.sql).
-- `last_slot`: the latest slot any process fired or skipped, ms.
CREATE TABLE {{schema}}.schedules (
  name       text COLLATE "C" PRIMARY KEY,
  cron       text   NOT NULL,
  tz         text,
  payload    text   NOT NULL,
  missed     text   NOT NULL,
  last_slot  bigint,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
