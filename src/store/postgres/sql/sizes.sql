-- What diagnose reports of the schema's size: $1 the schema's name. Its
-- tables with their indexes and TOAST, the server's page size, and its
-- shared buffers (the PostgreSQL side of SQLite's page cache).
SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes,
  current_setting('block_size')::bigint AS page_size,
  pg_size_bytes(current_setting('shared_buffers'))::bigint AS cache_bytes
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relkind = 'r'
