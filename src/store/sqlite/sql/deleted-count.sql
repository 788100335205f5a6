-- How many jobs were ever deleted (the dashboard's count of finished jobs gone).
SELECT value FROM queue_meta WHERE key = 'deleted'
