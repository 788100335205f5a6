-- Tells the schema's other stores that something changed (notify.ts): $1 the
-- channel, $2 the payload (the sender's id). Delivered at commit, and not at
-- all on a rollback.
SELECT pg_notify($1, $2)
