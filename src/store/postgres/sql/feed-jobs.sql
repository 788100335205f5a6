-- The jobs created in a slice of ids, oldest first, as enqueue changes
-- (feed-jobs.sql of the SQLite store): @after, @upTo.
SELECT id, id AS seq, name, NULL::text AS "from", (CASE WHEN children_left IS NOT NULL THEN {{waitingChildren}} ELSE {{pending}} END)::text AS "to",
  'job.enqueue'::text AS event, created_at AS at
FROM {{schema}}.jobs WHERE id > @after AND id <= @upTo
ORDER BY id
