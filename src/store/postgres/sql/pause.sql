-- Pauses a name, or the whole queue (pause.sql of the SQLite store): $1 name
-- ('' for the queue), $2 now. Idempotent: the first pause's time is kept.
INSERT INTO {{schema}}.paused_names (name, paused_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING
