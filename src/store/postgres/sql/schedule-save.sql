-- Saves a cron schedule (schedule-save.sql of the SQLite store): $1 name, $2
-- cron, $3 time zone, $4 payload, $5 what to do with missed slots, $6 now.
-- The last slot stays and becomes the floor, the version moves on; a schedule saved as it was is not touched.
INSERT INTO {{schema}}.schedules (name, cron, tz, payload, missed, last_slot, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, NULL, $6, $6)
ON CONFLICT (name) DO UPDATE SET cron = excluded.cron, tz = excluded.tz, payload = excluded.payload, missed = excluded.missed,
  updated_at = excluded.updated_at, version = schedules.version + 1, floor_slot = schedules.last_slot
WHERE (schedules.cron, schedules.tz, schedules.payload, schedules.missed) IS DISTINCT FROM (excluded.cron, excluded.tz, excluded.payload, excluded.missed)
