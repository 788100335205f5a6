-- A job name's limits changed while the queue runs (migration 020): @name,
-- @rule (JSON: the fields to change), @at. Merged into the stored fields by
-- the database (json_patch), so two changes of different limits at once
-- both land (engine/core/live-limits.ts).
INSERT INTO name_limits (name, rule, updated_at) VALUES (@name, @rule, @at)
ON CONFLICT (name) DO UPDATE SET rule = json_patch(rule, excluded.rule), updated_at = excluded.updated_at
