-- One job by id ($1).
SELECT * FROM {{schema}}.jobs WHERE id = $1
