-- A firing pass's check, inside its transaction: the schedule still holds the
-- definition the pass read (a change or an unschedule since then means the
-- pass decided on facts that no longer hold: it writes nothing).
SELECT 1 FROM schedules
WHERE name = @name AND cron = @cron AND tz IS @tz AND payload = @payload AND missed = @missed
