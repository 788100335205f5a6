-- A query that needs the schema: the server answers, and the tables are there.
SELECT value FROM {{schema}}.queue_meta WHERE key = 'migration_level'
