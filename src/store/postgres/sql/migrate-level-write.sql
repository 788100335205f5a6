-- Records the level of the last migration applied: $1 the level.
INSERT INTO {{schema}}.queue_meta (key, value) VALUES ('migration_level', $1)
ON CONFLICT (key) DO UPDATE SET value = excluded.value
