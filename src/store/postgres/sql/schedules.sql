-- Every schedule, by name (schedules.sql of the SQLite store).
SELECT name, cron, tz, payload, missed, last_slot, created_at, updated_at, version, floor_slot FROM {{schema}}.schedules ORDER BY name
