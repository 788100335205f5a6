-- A throttle key whose window has passed is given back (unique-throttle-expired.sql
-- of the SQLite store): $1 kind, $2 key, $3 now.
UPDATE {{schema}}.jobs SET unique_key = NULL WHERE unique_kind = $1 AND unique_key = $2 AND unique_until <= $3
