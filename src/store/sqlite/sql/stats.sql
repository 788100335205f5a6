SELECT state, name, count(*) AS n FROM jobs GROUP BY state, name
