-- Jobs created in (@after, @upTo], by second and name: an enqueue is its jobs
-- row, not a history row (history.sql). Jobs deleted since are not seen, nor
-- are their history rows (they go together).
SELECT created_at / 1000 AS second, name, CASE WHEN children_left IS NOT NULL THEN {{waitingChildren}} ELSE {{pending}} END AS state, count(*) AS count
FROM jobs WHERE id > @after AND id <= @upTo
GROUP BY 1, 2, 3
