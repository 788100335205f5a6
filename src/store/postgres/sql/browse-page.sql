-- A page of one state's jobs along its index (browse-jobs.ts plans the range:
-- the rows, their order and where a cursor resumes): @limit, and the plan's
-- own values (@state, @name, @k0 … the cursor's key).
SELECT {{columns}} FROM {{from}} ORDER BY {{order}} LIMIT @limit
