-- A parent moves once its children are done, or one failed (flow-move.sql of
-- the SQLite store): $1 parent id, $2 from, $3 to, $4 the error (null: kept),
-- $5 now. A parent back to pending is due now.
UPDATE {{schema}}.jobs SET state = $3, last_error = coalesce($4, last_error),
  run_at = CASE WHEN $3 = {{pending}} THEN $5 ELSE run_at END, updated_at = $5, version = version + 1
WHERE id = $1 AND state = $2
