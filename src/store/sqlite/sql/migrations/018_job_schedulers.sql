-- Schedules become job schedulers: several per job name, each by an id (the
-- job name for those made before), by a cron expression or a fixed interval
-- (`every_ms`), between a start and an end, at most `run_limit` slots
-- (`fired` counts them), the first at once with `immediately`. A slot's job
-- carries the key `cron:<id>:<slot>`, as before for an id that is the name.
CREATE TABLE schedules_by_id (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  cron        TEXT,
  every_ms    INTEGER,
  tz          TEXT,
  payload     TEXT NOT NULL,
  missed      TEXT NOT NULL,
  start_at    INTEGER,
  end_at      INTEGER,
  run_limit   INTEGER,
  immediately INTEGER NOT NULL DEFAULT 0,
  fired       INTEGER NOT NULL DEFAULT 0,
  last_slot   INTEGER,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  version     INTEGER NOT NULL DEFAULT 0,
  floor_slot  INTEGER
) WITHOUT ROWID;
INSERT INTO schedules_by_id (id, name, cron, tz, payload, missed, last_slot, created_at, updated_at, version, floor_slot)
SELECT name, name, cron, tz, payload, missed, last_slot, created_at, updated_at, version, floor_slot FROM schedules;
DROP TABLE schedules;
ALTER TABLE schedules_by_id RENAME TO schedules;
