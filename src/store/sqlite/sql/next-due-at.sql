SELECT min(run_at) AS at FROM jobs
WHERE state IN (SELECT value FROM json_each(:states)) AND run_at > :after
  AND name IN (SELECT value FROM json_each(:names))
