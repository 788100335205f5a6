-- A process that stops removes its row (process-remove.sql of the SQLite store): $1 owner.
DELETE FROM {{schema}}.worker_processes WHERE owner = $1
