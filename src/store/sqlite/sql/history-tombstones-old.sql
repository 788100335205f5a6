-- Only the newest tombstone is needed (see history-tombstone.sql).
DELETE FROM job_history WHERE job_id = 0 AND id < @id
