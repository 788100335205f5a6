-- Every cron schedule, by name.
SELECT name, cron, tz, payload, missed, last_slot, created_at, updated_at, version, floor_slot FROM schedules ORDER BY name
