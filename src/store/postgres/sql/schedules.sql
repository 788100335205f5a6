-- Every schedule, by id (schedules.sql of the SQLite store).
SELECT id, name, cron, every_ms, tz, payload, missed, start_at, end_at, run_limit, immediately, fired, last_slot, created_at, updated_at, version, floor_slot
FROM {{schema}}.schedules ORDER BY id
