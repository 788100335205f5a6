-- Whether a schedule is still as a firing read it (schedule-current.sql of the
-- SQLite store): $1 name, $2 cron, $3 time zone, $4 payload, $5 missed. The
-- row stays as read until the firing commits: a save or delete waits.
SELECT 1 FROM {{schema}}.schedules
WHERE name = $1 AND cron = $2 AND tz IS NOT DISTINCT FROM $3 AND payload = $4 AND missed = $5 FOR UPDATE
