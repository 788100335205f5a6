-- The key of the last row a filtered page read (@skip rows in): where the
-- next page goes on from.
SELECT {{keys}} FROM {{from}} ORDER BY {{order}} LIMIT 1 OFFSET @skip
