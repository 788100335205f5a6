-- A filtered page: at most @budget rows of the range are read (the scan
-- budget), and those that match the search (the compiled `where`, over the
-- whole payload as `doc`) come back, at most @limit.
SELECT * FROM (SELECT {{columns}} FROM {{from}} ORDER BY {{order}} LIMIT @budget) AS walked
WHERE {{where}} ORDER BY {{order}} LIMIT @limit
