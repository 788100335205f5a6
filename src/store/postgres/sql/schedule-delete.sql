-- queue.unschedule (schedule-delete.sql of the SQLite store): $1 the schedule's id.
DELETE FROM {{schema}}.schedules WHERE id = $1
