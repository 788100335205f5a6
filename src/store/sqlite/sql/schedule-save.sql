-- queue.schedule and a definition's `schedule` at start: the last slot stays, so a changed expression does not refire the past.
INSERT INTO schedules (name, cron, tz, payload, missed, last_slot, created_at, updated_at)
VALUES (@name, @cron, @tz, @payload, @missed, NULL, @at, @at)
ON CONFLICT (name) DO UPDATE SET cron = excluded.cron, tz = excluded.tz, payload = excluded.payload, missed = excluded.missed,
  updated_at = excluded.updated_at, version = schedules.version + 1, floor_slot = schedules.last_slot
WHERE cron IS NOT excluded.cron OR tz IS NOT excluded.tz OR payload IS NOT excluded.payload OR missed IS NOT excluded.missed
