-- Saves a schedule by id (schedule-save.sql of the SQLite store): $1 id, $2
-- job name, $3 cron, $4 interval ms, $5 time zone, $6 payload, $7 missed,
-- $8 start, $9 end, $10 run limit, $11 immediately, $12 now. A change starts
-- from itself: the floor becomes the later of the last slot and the moment
-- before it, the version moves on; a schedule saved as it was is not touched.
INSERT INTO {{schema}}.schedules (id, name, cron, every_ms, tz, payload, missed, start_at, end_at, run_limit, immediately, last_slot, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL, $12, $12)
ON CONFLICT (id) DO UPDATE SET name = excluded.name, cron = excluded.cron, every_ms = excluded.every_ms, tz = excluded.tz,
  payload = excluded.payload, missed = excluded.missed, start_at = excluded.start_at, end_at = excluded.end_at,
  run_limit = excluded.run_limit, immediately = excluded.immediately,
  updated_at = excluded.updated_at, version = schedules.version + 1,
  floor_slot = GREATEST(coalesce(schedules.last_slot, excluded.updated_at - 1), excluded.updated_at - 1)
WHERE (schedules.name, schedules.cron, schedules.every_ms, schedules.tz, schedules.payload, schedules.missed, schedules.start_at, schedules.end_at, schedules.run_limit, schedules.immediately)
  IS DISTINCT FROM (excluded.name, excluded.cron, excluded.every_ms, excluded.tz, excluded.payload, excluded.missed, excluded.start_at, excluded.end_at, excluded.run_limit, excluded.immediately)
