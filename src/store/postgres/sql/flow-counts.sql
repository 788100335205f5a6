-- A parent's children by state (flow-counts.sql of the SQLite store): $1 parent id.
SELECT state, count(*)::int AS n FROM {{schema}}.jobs WHERE parent_id = $1 GROUP BY state
