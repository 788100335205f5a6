-- The time of the first history row from @id on (a probe of a search by time: `at` follows the id, near enough).
SELECT id, at FROM job_history WHERE id >= @id ORDER BY id LIMIT 1
