-- queue.schedule and a definition's `schedule` at start, by id: a changed
-- definition starts from its change. Its floor becomes the later of the last
-- slot fired and the moment before the change: the past is not fired again,
-- and slots the old definition left unfired (a spent limit, an end passed, a
-- sparser expression) are not fired by the new one. The count of fired slots
-- stays. A schedule saved as it was is not touched.
INSERT INTO schedules (id, name, cron, every_ms, tz, payload, missed, start_at, end_at, run_limit, immediately, last_slot, created_at, updated_at)
VALUES (@id, @name, @cron, @every, @tz, @payload, @missed, @startAt, @endAt, @limit, @immediately, NULL, @at, @at)
ON CONFLICT (id) DO UPDATE SET name = excluded.name, cron = excluded.cron, every_ms = excluded.every_ms, tz = excluded.tz,
  payload = excluded.payload, missed = excluded.missed, start_at = excluded.start_at, end_at = excluded.end_at,
  run_limit = excluded.run_limit, immediately = excluded.immediately,
  updated_at = excluded.updated_at, version = schedules.version + 1,
  floor_slot = max(coalesce(schedules.last_slot, excluded.updated_at - 1), excluded.updated_at - 1)
WHERE name IS NOT excluded.name OR cron IS NOT excluded.cron OR every_ms IS NOT excluded.every_ms OR tz IS NOT excluded.tz
  OR payload IS NOT excluded.payload OR missed IS NOT excluded.missed OR start_at IS NOT excluded.start_at
  OR end_at IS NOT excluded.end_at OR run_limit IS NOT excluded.run_limit OR immediately IS NOT excluded.immediately
