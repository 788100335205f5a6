-- The claim as a function of the schema (claim.ts calls it): its statements
-- are planned once per connection and their plans kept, where the same
-- statement sent as text was planned on every claim (0.2–0.3 ms of a one-job
-- claim's 0.8 ms, 1.7 ms for 400 jobs; graphile-worker's get_job is kept the
-- same way).
--
-- Arguments: the names to claim, now (ms), at most p_limit jobs, the lease
-- (owner, token, until), the attempts a claim adds and the history event
-- (the job machine's claim rule, which every accepted machine shares:
-- pending → processing), and whether to record the claim in job_history.
--
-- Answers the leased jobs in claim order with `grouped` and `pause_ends`
-- NULL, then one last row whose id is NULL: `grouped`, whether any grouped
-- job is pending (one step into jobs_grouped), and `pause_ends`, the earliest
-- end of a RateLimitedError pause among the names.
--
-- Why the settings:
-- - plan_cache_mode = force_generic_plan: each statement is planned once per
--   connection. Left to choose, the plan cache kept making a custom plan for
--   every call (it priced the generic one higher), which is the cost this
--   function exists to save.
-- - enable_seqscan = off, enable_bitmapscan = off, jit = off: the plan is
--   made on the first claim of a connection, often on an empty queue, and
--   kept while a burst fills the table (until it is analyzed). Left to
--   choose, the planner took the table for a handful of rows: it read all of
--   it to find the leased rows (7.6 ms a one-job claim among 50,000 jobs,
--   against 1.2 ms) or read the backlog and sorted it. The states are
--   literals, so the generic plan still sees that `state = 'pending'` matches
--   jobs_ready, and walks it in order.
-- - The paused names filter the names once, not the jobs row by row (joined
--   against each job, the small, never analyzed paused_names table made the
--   planner expect almost no job to pass); leased rows are found by primary
--   key from an array, not joined (a join hashed the whole table when the
--   planner took it for small).
CREATE FUNCTION {{schema}}.claim_ready(
  p_names text[], p_now bigint, p_limit integer, p_owner text, p_token text,
  p_locked_until bigint, p_attempts integer, p_event text, p_history boolean)
RETURNS TABLE (
  id bigint, name text, payload text, key text, priority integer, run_at bigint,
  attempts integer, last_error text, ctx text, retry text, timeout_ms bigint,
  created_at bigint, group_key text, parent_id bigint, version integer,
  grouped boolean, pause_ends bigint)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET enable_bitmapscan = off
SET jit = off
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH open_names AS (
    SELECT n FROM unnest(p_names) AS n
    WHERE NOT EXISTS (SELECT 1 FROM {{schema}}.paused_names p WHERE p.name = n OR p.name = '')
      AND NOT EXISTS (SELECT 1 FROM {{schema}}.job_limits l WHERE l.kind = 'name' AND l.key = n AND l.paused_until > p_now)
  ), ready AS (
    SELECT j.id FROM {{schema}}.jobs j
    WHERE j.state = {{pending}} AND j.group_key IS NULL AND j.run_at <= p_now
      AND j.name = ANY (ARRAY(SELECT n FROM open_names))
    ORDER BY j.priority DESC, j.run_at, j.id
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  ), leased AS (
    UPDATE {{schema}}.jobs j
    SET state = {{processing}}, attempts = j.attempts + p_attempts, lease_owner = p_owner, lease_token = p_token,
      locked_until = p_locked_until, updated_at = p_now, version = j.version + 1,
      -- The claimed state holds unique keys of span 'active' or longer (records.ts UniqueSpan).
      unique_key = CASE WHEN j.unique_span >= {{span.active}} THEN j.unique_key END
    WHERE j.id = ANY (ARRAY(SELECT id FROM ready))
    RETURNING j.id, j.name, j.payload, j.key, j.priority, j.run_at, j.attempts, j.last_error, j.ctx, j.retry,
      j.timeout_ms, j.created_at, j.group_key, j.parent_id, j.version
  ), recorded AS (
    INSERT INTO {{schema}}.job_history (job_id, from_state, to_state, event, at, worker_id, lease_token)
    SELECT l.id, {{pending}}, {{processing}}, p_event, p_now, p_owner, p_token FROM leased l WHERE p_history
  )
  SELECT l.id, l.name::text, l.payload, l.key::text, l.priority, l.run_at, l.attempts, l.last_error, l.ctx, l.retry,
    l.timeout_ms, l.created_at, l.group_key::text, l.parent_id, l.version, NULL::boolean, NULL::bigint
  FROM leased l ORDER BY l.priority DESC, l.run_at, l.id;

  RETURN QUERY
  SELECT NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::integer, NULL::bigint, NULL::integer, NULL::text,
    NULL::text, NULL::text, NULL::bigint, NULL::bigint, NULL::text, NULL::bigint, NULL::integer,
    EXISTS (SELECT 1 FROM {{schema}}.jobs j WHERE j.state = {{pending}} AND j.group_key IS NOT NULL),
    (SELECT min(l.paused_until) FROM {{schema}}.job_limits l
     WHERE l.kind = 'name' AND l.paused_until > p_now AND l.key = ANY (p_names)
       AND NOT EXISTS (SELECT 1 FROM {{schema}}.paused_names p WHERE p.name = l.key OR p.name = ''));
END
$$;
