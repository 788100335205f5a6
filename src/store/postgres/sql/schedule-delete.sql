-- Deletes a schedule (schedule-delete.sql of the SQLite store): $1 name.
DELETE FROM {{schema}}.schedules WHERE name = $1
