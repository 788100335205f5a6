-- Jobs with ids in (@after, @upTo] by state and name: a slice of the exact
-- count, so that counting a large file never holds the event loop for long.
SELECT state, name, count(*) AS count
FROM jobs WHERE id > @after AND id <= @upTo
GROUP BY state, name
