-- message-unseen.sql of the SQLite store: $1 the names, $2 the most to read;
-- read from the messages not yet taken (job_messages_box), never by a walk of the jobs.
SELECT DISTINCT ON (j.id) j.id, m.topic FROM {{schema}}.job_messages m
JOIN {{schema}}.jobs j ON j.id = m.job_id
WHERE m.taken_by IS NULL AND j.state = 'waiting-message' AND m.topic = {{schema}}.try_jsonb(j.ctx) ->> 'waitTopic'
  AND j.name = ANY ($1::text[])
ORDER BY j.id
LIMIT $2
