-- A job's completed steps (ctx.step, ctx.sleep), in order.
SELECT name, seq, result, wake_at, attempt, at FROM job_steps WHERE job_id = @id ORDER BY seq
