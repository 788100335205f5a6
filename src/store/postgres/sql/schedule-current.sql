-- Whether a schedule is still as a firing read it (schedule-current.sql of the
-- SQLite store): $1 name, $2 the version read, $3 the row's creation read
-- (a schedule unscheduled and made again starts its versions anew). The row stays as read until
-- the firing commits: a save or delete waits.
SELECT 1 FROM {{schema}}.schedules
WHERE name = $1 AND version = $2 AND created_at = $3 FOR UPDATE
