-- The walk over groups, one group a step: the first job, in claim order, of
-- the first group after @after (up to @upto, when given) that has a due job
-- of these names. Seeks jobs_grouped, which is ordered by group first; the
-- due and name conditions are read from the index's rows as it steps. A
-- group found busy is stepped over by the next seek (after = that group), so
-- its backlog is never read row by row.
SELECT id, name, payload, key, priority, run_at, attempts, last_error, ctx, retry, timeout_ms, created_at, unique_span, group_key
FROM jobs INDEXED BY jobs_grouped
WHERE state = {{pending}} AND group_key IS NOT NULL
  AND group_key > @after AND (@upto IS NULL OR group_key <= @upto)
  AND run_at <= @now
  AND name IN (SELECT value FROM json_each(@names))
ORDER BY group_key, priority DESC, run_at, id
LIMIT 1
