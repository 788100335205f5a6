-- The first step of every claim: jobs committed on their own since the last
-- claim enter the claim index (insert-single.sql), all in one statement.
UPDATE jobs SET indexed = 1
WHERE id > (SELECT value FROM queue_meta WHERE key = 'indexed_upto') AND indexed = 0
