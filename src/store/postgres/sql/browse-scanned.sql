-- How much of a filtered page's range was read, up to @budget: when the
-- budget ran out, the page comes back short with a cursor to go on from.
SELECT count(*) AS n FROM (SELECT {{keys}} FROM {{from}} ORDER BY {{order}} LIMIT @budget) AS walked
