-- The log lines of deleted jobs: $1 their ids.
DELETE FROM {{schema}}.job_logs WHERE job_id = ANY($1::bigint[])
