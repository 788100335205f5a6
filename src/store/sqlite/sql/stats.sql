-- Jobs by state and name (queue-stats.ts folds them).
SELECT state, name, count(*) AS n FROM jobs GROUP BY state, name
