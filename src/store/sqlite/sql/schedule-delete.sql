-- queue.unschedule
DELETE FROM schedules WHERE name = @name
