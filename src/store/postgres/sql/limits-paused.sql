-- The names and groups paused past $1 (limits-paused.sql of the SQLite store).
SELECT kind, key, paused_until AS "until" FROM {{schema}}.job_limits WHERE kind IN ('name', 'group') AND paused_until > $1
