-- Where a batch insert's ids start: SQLite gives a row without an id the
-- newest id + 1 (@top), which would hand out again the ids of the newest jobs
-- if they were deleted; every delete first moves `indexed_upto` (@mark) past
-- the ids it deletes. When the mark is ahead, the batch's first row takes
-- mark + 1 explicitly and the rest follow it (an explicit id costs the insert
-- a lookup, so only that row pays).
SELECT (SELECT coalesce(max(id), 0) FROM jobs) AS top, (SELECT value FROM queue_meta WHERE key = 'indexed_upto') AS mark
