-- One page of jobs in id order or newest first (as the SQLite store's
-- list-jobs.ts reads it): the conditions list-jobs.ts adds for a state, a
-- name and a cursor (each value bound), the order, and the limit ($n, last).
SELECT * FROM {{schema}}.jobs {{where}} ORDER BY id {{direction}} LIMIT {{limit}}
