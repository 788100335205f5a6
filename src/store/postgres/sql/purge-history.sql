-- The history of deleted jobs: $1 their ids.
DELETE FROM {{schema}}.job_history WHERE job_id = ANY($1::bigint[])
