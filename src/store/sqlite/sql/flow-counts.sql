-- A parent's children by state (jobs_children).
SELECT state, count(*) AS n FROM jobs INDEXED BY jobs_children WHERE parent_id = @id GROUP BY state
