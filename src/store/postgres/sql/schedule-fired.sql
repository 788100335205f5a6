-- Records a schedule's last handled slot (schedule-fired.sql of the SQLite
-- store): $1 name, $2 slot, $3 now. It never moves back.
UPDATE {{schema}}.schedules SET last_slot = $2, updated_at = $3 WHERE name = $1 AND (last_slot IS NULL OR last_slot < $2)
