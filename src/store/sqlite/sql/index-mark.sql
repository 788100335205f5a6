-- The second step: every job up to the newest is now indexed.
UPDATE queue_meta SET value = (SELECT max(id) FROM jobs)
WHERE key = 'indexed_upto' AND value < (SELECT max(id) FROM jobs)
