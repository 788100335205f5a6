-- The first id a batch insert may use: above every job that exists and every
-- job ever deleted (each delete first moves `indexed_upto` past its ids).
SELECT max((SELECT coalesce(max(id), 0) FROM jobs), (SELECT value FROM queue_meta WHERE key = 'indexed_upto')) + 1
