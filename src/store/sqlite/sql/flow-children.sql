SELECT * FROM jobs INDEXED BY jobs_children WHERE parent_id = @id AND id > @after ORDER BY id LIMIT @limit
