-- The rate buckets' logs after a claim spent from them (limits-spend.sql of
-- the SQLite store). Values written in: the buckets' kinds, keys and logs
-- (JSON text), now.
INSERT INTO {{schema}}.job_limits (kind, key, spent, updated_at)
SELECT kind, key, spent, {{now}} FROM unnest({{kinds}}, {{keys}}, {{spents}}) AS u (kind, key, spent)
ON CONFLICT (kind, key) DO UPDATE SET spent = excluded.spent, updated_at = excluded.updated_at
