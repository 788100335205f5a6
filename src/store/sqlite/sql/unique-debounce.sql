-- A debounce key still held means its job was not claimed yet: it takes the
-- newer payload and runs `ms` after this enqueue instead.
UPDATE jobs SET payload = @payload, run_at = @runAt, updated_at = @at, version = version + 1
WHERE unique_kind = @kind AND unique_key = @key
RETURNING id, state
