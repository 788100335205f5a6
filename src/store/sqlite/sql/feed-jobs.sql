-- The jobs created in (@after, @upTo], oldest first, as enqueue changes: the
-- change feed's first sequence (change-feed.ts merges it with the history).
-- A job deleted by the move that finished it is read from its kept outcome.
SELECT id, id AS seq, name, NULL AS "from", CASE WHEN children_left IS NOT NULL THEN {{waitingChildren}} ELSE {{pending}} END AS "to", 'job.enqueue' AS event, created_at AS at
FROM jobs WHERE id > @after AND id <= @upTo
UNION ALL
SELECT id, id AS seq, name, NULL AS "from", born AS "to", 'job.enqueue' AS event, created_at AS at
FROM job_outcomes WHERE id > @after AND id <= @upTo
ORDER BY id
