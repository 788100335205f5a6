-- The rate buckets of one group of a name (limits-buckets.sql of the SQLite
-- store). Values written in: the buckets' keys.
SELECT key, spent FROM {{schema}}.job_limits WHERE kind = 'name-group' AND key = ANY ({{keys}})
