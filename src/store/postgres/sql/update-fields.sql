-- A job.update's new payload and priority, after its move (update-fields.sql
-- of the SQLite store): $1 job id, $2 payload (null: kept), $3 priority (null: kept).
UPDATE {{schema}}.jobs SET payload = coalesce($2, payload), priority = coalesce($3::int, priority) WHERE id = $1
