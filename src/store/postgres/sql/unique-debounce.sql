-- A debounce key's holder takes the new payload and run time (unique-debounce.sql
-- of the SQLite store): $1 kind, $2 key, $3 payload, $4 run at, $5 now.
-- Still unclaimed: a claim gives the key back under the row's lock.
UPDATE {{schema}}.jobs SET payload = $3, run_at = $4, updated_at = $5, version = version + 1
WHERE unique_kind = $1 AND unique_key = $2 RETURNING id, state
