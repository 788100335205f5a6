-- queue.unschedule, by the schedule's id.
DELETE FROM schedules WHERE id = @id
