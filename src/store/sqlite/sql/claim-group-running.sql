-- One group's leased jobs (a count over jobs_group_running).
SELECT count(*) FROM jobs INDEXED BY jobs_group_running WHERE state = {{processing}} AND group_key = @group
