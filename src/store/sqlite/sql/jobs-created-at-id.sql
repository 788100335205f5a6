-- The creation time of the first job from @id on (a probe of a search by time).
SELECT id, created_at AS at FROM jobs WHERE id >= @id ORDER BY id LIMIT 1
