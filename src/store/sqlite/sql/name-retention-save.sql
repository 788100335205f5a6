-- A job name's own retention, as its definition says: @name, @rule (JSON), @at.
INSERT INTO name_retention (name, rule, updated_at) VALUES (@name, @rule, @at)
ON CONFLICT (name) DO UPDATE SET rule = excluded.rule, updated_at = excluded.updated_at
WHERE rule IS NOT excluded.rule
