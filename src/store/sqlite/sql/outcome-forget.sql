-- Forgets one kept outcome (its history goes beside it: purge.ts).
DELETE FROM job_outcomes WHERE id = @id
