-- A firing pass's check, inside its transaction: the schedule is still the
-- row the pass read (created then: one unscheduled and made again starts its
-- versions anew) at the version it read (the definition, changed and changed
-- back, would match), and, with a run limit, at the count it read (another
-- process's slots count too). A change or an unschedule since then means the
-- pass decided on facts that no longer hold: it writes nothing.
SELECT 1 FROM schedules
WHERE id = @id AND version = @version AND created_at = @createdAt AND (run_limit IS NULL OR fired = @fired)
