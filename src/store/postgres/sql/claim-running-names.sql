-- Leased jobs of some names (claim-running-names.sql of the SQLite store),
-- along jobs_leased: $1 names.
SELECT name, count(*)::int AS n FROM {{schema}}.jobs WHERE state = {{processing}} AND name = ANY ($1::text[]) GROUP BY name
