-- Whether a schedule is still as a firing read it (schedule-current.sql of the
-- SQLite store): $1 id, $2 the version read, $3 the row's creation read, $4
-- the count of fired slots read (checked under a run limit). The row stays as
-- read until the firing commits: a save or delete waits.
SELECT 1 FROM {{schema}}.schedules
WHERE id = $1 AND version = $2 AND created_at = $3 AND (run_limit IS NULL OR fired = $4) FOR UPDATE
