-- How many jobs were ever deleted (deleted-count.sql of the SQLite store).
SELECT value FROM {{schema}}.queue_meta WHERE key = 'deleted'
