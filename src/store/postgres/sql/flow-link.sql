-- Links a level of a flow to the parents inserted before it (flow-link.sql of
-- the SQLite store): $1 job ids, $2 their parents, $3 children each waits for
-- (null: no parent), $4 each parent's policy on a failed child.
--
-- Planned per call (prepared.ts): it finds jobs by an array of ids.
/* planned per call */ UPDATE {{schema}}.jobs j SET parent_id = u.parent, children_left = u.left_n,
  children_failed = CASE WHEN u.left_n IS NULL THEN NULL ELSE 0 END, on_child_failure = u.policy
FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::text[]) AS u (id, parent, left_n, policy)
WHERE j.id = u.id
