INSERT INTO jobs (name, state, payload, key, priority, run_at, retry, timeout_ms, created_at, updated_at)
VALUES (:name, :state, :payload, :key, :priority, :runAt, :retry, :timeout, :at, :at)
ON CONFLICT (key) WHERE key IS NOT NULL DO NOTHING
RETURNING id
