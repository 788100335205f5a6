-- One migrator at a time per schema, across processes (open.ts): the
-- others wait here, then find the level up to date. $1 the lock's key.
SELECT pg_advisory_xact_lock(hashtext($1))
