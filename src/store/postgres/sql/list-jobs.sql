-- One page of jobs in id order or newest first (list-jobs.ts of the SQLite
-- store): the conditions list.ts adds for a state, a name and a cursor (each
-- value bound), the order, and the limit ($n, last).
SELECT * FROM {{schema}}.jobs {{where}} ORDER BY id {{direction}} LIMIT {{limit}}
