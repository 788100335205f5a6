-- Counts jobs deleted (count-deleted.sql of the SQLite store; the dashboard
-- reads the count): $1 how many.
UPDATE {{schema}}.queue_meta SET value = value + $1 WHERE key = 'deleted'
