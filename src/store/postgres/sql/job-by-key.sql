-- The job holding an idempotency key (queue.signal({ key })).
SELECT id FROM {{schema}}.jobs WHERE key = $1
