-- The walk over groups, up to @steps groups in one statement: from the first
-- group after @after (up to @upto, when given) that has a due job of these
-- names, each step seeks the next such group along jobs_grouped, which is
-- ordered by group first; the due and name conditions are read from the
-- index's rows as it steps. The first matching row of a group is its first
-- job in claim order (the columns claim-ready.sql reads). Each group comes
-- with its leased jobs (counted on jobs_group_running); the caller steps
-- over the busy ones, so a busy group's backlog is never read row by row.
-- One statement for the walk: a statement per group measured twice the
-- claim's cost.
WITH RECURSIVE walk(id, step) AS (
  SELECT (
    SELECT id FROM jobs INDEXED BY jobs_grouped
    WHERE state = {{pending}} AND group_key IS NOT NULL
      AND group_key > @after AND (@upto IS NULL OR group_key <= @upto)
      AND run_at <= @now AND (lease_token IS NULL OR locked_until < @now) AND name IN (SELECT value FROM json_each(@names))
    ORDER BY group_key, priority DESC, run_at, id LIMIT 1
  ), 1
  UNION ALL
  SELECT (
    SELECT n.id FROM jobs AS n INDEXED BY jobs_grouped
    WHERE n.state = {{pending}} AND n.group_key IS NOT NULL
      AND n.group_key > (SELECT p.group_key FROM jobs AS p WHERE p.id = walk.id)
      AND (@upto IS NULL OR n.group_key <= @upto)
      AND n.run_at <= @now AND (n.lease_token IS NULL OR n.locked_until < @now) AND n.name IN (SELECT value FROM json_each(@names))
    ORDER BY n.group_key, n.priority DESC, n.run_at, n.id LIMIT 1
  ), step + 1
  FROM walk WHERE walk.id IS NOT NULL AND step < @steps
)
SELECT {{ready.columns j}}, j.unique_span,
  (SELECT count(*) FROM jobs AS r INDEXED BY jobs_group_running WHERE r.state = {{processing}} AND r.group_key = j.group_key) AS running
FROM walk AS w JOIN jobs AS j ON j.id = w.id
ORDER BY w.step
