-- Every delete of jobs adds how many went (see migration 005).
UPDATE queue_meta SET value = value + @n WHERE key = 'deleted'
