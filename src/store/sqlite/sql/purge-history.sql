-- A deleted job's history; the ids it held tell the caller whether the newest went (purge.ts).
DELETE FROM job_history WHERE job_id = @id RETURNING id
