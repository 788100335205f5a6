-- message-unseen.sql of the SQLite store: $1 the names, $2 the most to read.
SELECT DISTINCT ON (j.id) j.id, m.topic FROM {{schema}}.jobs j
JOIN {{schema}}.job_messages m ON m.job_id = j.id AND m.taken_by IS NULL AND m.topic = {{schema}}.try_jsonb(j.ctx) ->> 'waitTopic'
WHERE j.state = 'waiting-message' AND j.name = ANY ($1::text[])
ORDER BY j.id
LIMIT $2
