-- The newest jobs created in a slice of ids, as enqueue transitions
-- (changes-recent-jobs.sql of the SQLite store): @after, @upTo, @limit.
SELECT id, id AS seq, name, NULL::text AS "from", (CASE WHEN children_left IS NOT NULL THEN {{waitingChildren}} ELSE {{pending}} END)::text AS "to",
  'job.enqueue'::text AS event, created_at AS at
FROM {{schema}}.jobs WHERE id > @after AND id <= @upTo
ORDER BY id DESC LIMIT @limit
