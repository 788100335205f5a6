-- doctor: processing jobs whose lease ran out, or that have none (see expired-leases.sql).
SELECT count(*) FROM jobs INDEXED BY jobs_leased
WHERE state = {{processing}} AND (locked_until IS NULL OR locked_until < @now)
