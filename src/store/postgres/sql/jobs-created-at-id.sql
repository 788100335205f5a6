-- The first job at or after @id, with its creation time (jobs-created-at-id.sql of the SQLite store).
SELECT id, created_at AS at FROM {{schema}}.jobs WHERE id >= @id ORDER BY id LIMIT 1
