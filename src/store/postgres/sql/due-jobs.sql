-- Jobs in a delayed state whose time has come (due-jobs.sql of the SQLite
-- store), for every (state, name) at once: $1 names, $2 states, $3 now, $4 at
-- most this many. In the order the SQLite store asks them (state by state,
-- name by name), so both stores promote the same jobs first. The base states
-- are left out: jobs_waiting is partial on the rest.
SELECT * FROM {{schema}}.jobs
WHERE state = ANY($2::text[]) AND name = ANY($1::text[]) AND run_at <= $3
  AND state <> {{pending}} AND state <> {{processing}} AND state <> {{completed}} AND state <> {{dead}} AND state <> {{cancelled}}
ORDER BY array_position($2::text[], state::text), array_position($1::text[], name::text), run_at, id
LIMIT $4
