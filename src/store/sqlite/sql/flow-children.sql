-- A page of a parent's children in id order (jobs_children): after @after, at most @limit.
SELECT * FROM jobs INDEXED BY jobs_children WHERE parent_id = @id AND id > @after ORDER BY id LIMIT @limit
