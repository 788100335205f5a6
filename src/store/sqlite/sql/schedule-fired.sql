-- A firing pass's mark: never moves back (a slower process may mark an earlier slot after a faster one).
UPDATE schedules SET last_slot = @slot, updated_at = @at WHERE name = @name AND (last_slot IS NULL OR last_slot < @slot)
