-- A job name's own retention, as its definition says (name-retention-save.sql
-- of the SQLite store): $1 name, $2 the rule (JSON), $3 now.
INSERT INTO {{schema}}.name_retention (name, rule, updated_at) VALUES ($1, $2, $3)
ON CONFLICT (name) DO UPDATE SET rule = excluded.rule, updated_at = excluded.updated_at
WHERE name_retention.rule IS DISTINCT FROM excluded.rule
