-- Opens a read-only transaction whose reads all see one snapshot (open.ts tx, mode 'snapshot'):
-- a dashboard read's counts, paused names and cursor agree.
BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY
