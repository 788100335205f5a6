-- The jobs holding some keys, as they are now (find-by-key.sql of the SQLite
-- store, for a batch): $1 keys.
--
-- Planned per call (prepared.ts): it finds jobs by an array of ids.
/* planned per call */ SELECT id, key, state FROM {{schema}}.jobs WHERE key = ANY($1::text[])
