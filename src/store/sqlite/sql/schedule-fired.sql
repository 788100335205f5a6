-- A firing pass's mark: the last slot never moves back (a slower process may
-- mark an earlier slot after a faster one); @n slots fired count toward the limit.
UPDATE schedules SET last_slot = CASE WHEN last_slot IS NULL OR last_slot < @slot THEN @slot ELSE last_slot END,
  fired = fired + @n, updated_at = @at
WHERE id = @id
