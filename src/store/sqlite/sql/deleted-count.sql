SELECT value FROM queue_meta WHERE key = 'deleted'
