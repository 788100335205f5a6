-- A child of this parent finished (or was taken back from finished): its counts change (flow-settle.ts).
UPDATE jobs
SET children_left = children_left + @left,
    children_failed = children_failed + @failed
WHERE id = @id AND children_left IS NOT NULL
RETURNING id, name, state, attempts, children_left, children_failed, on_child_failure, parent_id
