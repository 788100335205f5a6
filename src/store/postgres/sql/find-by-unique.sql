-- The job holding a key (find-by-unique.sql of the SQLite store): $1 kind, $2 key.
SELECT id, state, unique_until FROM {{schema}}.jobs WHERE unique_kind = $1 AND unique_key = $2
