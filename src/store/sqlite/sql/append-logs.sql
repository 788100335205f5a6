-- One run's log lines (ctx.log), numbered after the job's stored ones with
-- @skipped numbers left out first (lines the run dropped itself). @lines is
-- a JSON array of [at, level, message, fields]. A job that is gone gets none.
INSERT INTO job_logs (job_id, seq, at, attempt, level, message, fields)
SELECT @id, (SELECT coalesce(max(seq), 0) FROM job_logs WHERE job_id = @id) + @skipped + l.key + 1,
  l.value ->> 0, @attempt, l.value ->> 1, l.value ->> 2, l.value ->> 3
FROM json_each(@lines) AS l
WHERE EXISTS (SELECT 1 FROM jobs WHERE id = @id)
