-- A parent hears of its children (flow-bump.sql of the SQLite store): $1
-- parent id, $2 children that left, $3 children that failed. Two children
-- finishing at once in two transactions meet on this row: the UPDATE waits
-- for the other's commit and counts from the committed row, so exactly one of
-- them sees the last child go. Answers the parent as it is now (none: it is
-- gone, deleted by retention).
UPDATE {{schema}}.jobs SET children_left = children_left + $2, children_failed = children_failed + $3
WHERE id = $1 AND children_left IS NOT NULL
RETURNING id, name, state, attempts, children_left, children_failed, on_child_failure, parent_id
