-- Every schedule, by id.
SELECT id, name, cron, every_ms, tz, payload, missed, start_at, end_at, run_limit, immediately, fired, last_slot, created_at, updated_at, version, floor_slot
FROM schedules ORDER BY id
