-- How many leases have run out (expired-count.sql of the SQLite store; diagnose): $1 now.
SELECT count(*) AS n FROM {{schema}}.jobs WHERE state = {{processing}} AND (locked_until IS NULL OR locked_until < $1)
