-- A firing pass's check, inside its transaction: the schedule is still at the
-- version the pass read (the definition, changed and changed back, would match) (a change or an unschedule since then means the
-- pass decided on facts that no longer hold: it writes nothing).
SELECT 1 FROM schedules
WHERE name = @name AND version = @version
