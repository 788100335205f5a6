-- Buckets of one group of a name (@keys: JSON array of their keys).
SELECT key, spent FROM job_limits WHERE kind = 'name-group' AND key IN (SELECT value FROM json_each(@keys))
