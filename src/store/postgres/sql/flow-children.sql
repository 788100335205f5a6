-- A page of a parent's children, in id order (flow-children.sql of the SQLite
-- store; jobs_children): $1 parent id, $2 after this id, $3 at most this many.
SELECT * FROM {{schema}}.jobs WHERE parent_id = $1 AND id > $2 ORDER BY id LIMIT $3
