-- The durable steps of deleted jobs: $1 their ids.
DELETE FROM {{schema}}.job_steps WHERE job_id = ANY($1::bigint[])
