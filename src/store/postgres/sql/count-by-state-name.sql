-- Jobs of a slice of ids by state and name (count-by-state-name.sql of the
-- SQLite store): @after, @upTo.
SELECT state, name, count(*) AS count
FROM {{schema}}.jobs WHERE id > @after AND id <= @upTo GROUP BY state, name
