-- A process that stops running workers takes its row out.
DELETE FROM worker_processes WHERE owner = @owner
