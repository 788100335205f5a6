-- Jobs created in a slice of ids, by second, name and the state they were
-- created in (changes-enqueued.sql of the SQLite store): @after, @upTo.
SELECT created_at / 1000 AS second, name, CASE WHEN children_left IS NOT NULL THEN {{waitingChildren}} ELSE {{pending}} END AS state, count(*) AS count
FROM {{schema}}.jobs WHERE id > @after AND id <= @upTo GROUP BY 1, 2, 3
