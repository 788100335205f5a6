-- The first history row at or after @id, with its time (history-at-id.sql of the SQLite store).
SELECT id, at FROM {{schema}}.job_history WHERE id >= @id ORDER BY id LIMIT 1
