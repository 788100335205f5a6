-- Deletes one job by id (purge.ts deletes its history, steps and log lines beside it).
DELETE FROM jobs WHERE id = @id
