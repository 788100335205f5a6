-- Lifts a pause (resume.sql of the SQLite store): $1 name ('' for the queue).
DELETE FROM {{schema}}.paused_names WHERE name = $1
