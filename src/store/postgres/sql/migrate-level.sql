-- The level of the last migration applied.
SELECT value FROM {{schema}}.queue_meta WHERE key = 'migration_level'
