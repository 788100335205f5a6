-- Jobs by state and name (stats.sql of the SQLite store; queue-stats.ts folds them).
SELECT state, name, count(*) AS n FROM {{schema}}.jobs GROUP BY state, name
