-- A job name's limits changed while the queue runs (name-limits-save.sql of
-- the SQLite store): $1 name, $2 the fields to change (JSON), $3 now.
-- Merged into the stored fields by the database (jsonb ||: a field given
-- replaces the stored one), so two changes of different limits at once both land.
INSERT INTO {{schema}}.name_limits (name, rule, updated_at) VALUES ($1, $2, $3)
ON CONFLICT (name) DO UPDATE SET rule = (name_limits.rule::jsonb || excluded.rule::jsonb)::text, updated_at = excluded.updated_at
