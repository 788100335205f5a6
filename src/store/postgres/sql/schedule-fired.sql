-- Records a firing (schedule-fired.sql of the SQLite store): $1 id, $2 slot,
-- $3 now, $4 slots fired. The last slot never moves back.
UPDATE {{schema}}.schedules SET last_slot = CASE WHEN last_slot IS NULL OR last_slot < $2 THEN $2 ELSE last_slot END,
  fired = fired + $4, updated_at = $3
WHERE id = $1
