-- The earliest due time among waiting jobs of these names (may be in the past
-- for a delayed state that is due but not yet promoted).
SELECT min(run_at) AS at FROM jobs
WHERE state IN (SELECT value FROM json_each(:states))
  AND name IN (SELECT value FROM json_each(:names))
