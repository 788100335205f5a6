-- The jobs created in a slice of ids, oldest first, as enqueue changes
-- (feed-jobs.sql of the SQLite store): @after, @upTo. A job deleted by the
-- move that finished it is read from its kept outcome.
SELECT id, id AS seq, name, NULL::text AS "from", (CASE WHEN children_left IS NOT NULL THEN {{waitingChildren}} ELSE {{pending}} END)::text AS "to",
  'job.enqueue'::text AS event, created_at AS at
FROM {{schema}}.jobs WHERE id > @after AND id <= @upTo
UNION ALL
SELECT id, id AS seq, name, NULL::text AS "from", born AS "to", 'job.enqueue'::text AS event, created_at AS at
FROM {{schema}}.job_outcomes WHERE id > @after AND id <= @upTo
ORDER BY id
