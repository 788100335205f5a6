-- The paused names, '' for the whole queue (paused.sql of the SQLite store).
SELECT name FROM {{schema}}.paused_names ORDER BY name
