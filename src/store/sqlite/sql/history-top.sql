SELECT coalesce(max(id), 0) FROM job_history
