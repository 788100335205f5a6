-- Pauses on the database's clock: a RateLimitedError pause is written and
-- read in the database's time (src/engine/shared-time.ts), not in the time
-- of the host that claims, so a host whose clock runs ahead does not end
-- another's pause early. Due times and leases stay on the claimer's clock.
--
-- The claim function of migration 011 (read 009 for why it is shaped so),
-- with the database's time for pauses as its last argument. Dropped and
-- made again in this migration's transaction, as 011 did.
DROP FUNCTION {{schema}}.claim_ready(text[], bigint, integer, text, text, bigint, integer, text, boolean);

CREATE FUNCTION {{schema}}.claim_ready(
  p_names text[], p_now bigint, p_limit integer, p_owner text, p_token text,
  p_locked_until bigint, p_attempts integer, p_event text, p_history boolean, p_limits_now bigint)
RETURNS TABLE (
  id bigint, name text, payload text, key text, priority integer, run_at bigint,
  attempts integer, last_error text, ctx text, retry text, timeout_ms bigint,
  created_at bigint, group_key text, parent_id bigint, version integer, trace_context text,
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
      AND NOT EXISTS (SELECT 1 FROM {{schema}}.job_limits l WHERE l.kind = 'name' AND l.key = n AND l.paused_until > p_limits_now)
  ), ready AS (
    SELECT j.id FROM {{schema}}.jobs j
    WHERE j.state = {{pending}} AND j.group_key IS NULL AND j.run_at <= p_now
      AND (j.lease_token IS NULL OR j.locked_until < p_now)
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
      j.timeout_ms, j.created_at, j.group_key, j.parent_id, j.version, j.trace_context
  ), recorded AS (
    INSERT INTO {{schema}}.job_history (job_id, from_state, to_state, event, at, worker_id, lease_token)
    SELECT l.id, {{pending}}, {{processing}}, p_event, p_now, p_owner, p_token FROM leased l WHERE p_history
  )
  SELECT l.id, l.name::text, l.payload, l.key::text, l.priority, l.run_at, l.attempts, l.last_error, l.ctx, l.retry,
    l.timeout_ms, l.created_at, l.group_key::text, l.parent_id, l.version, l.trace_context, NULL::boolean, NULL::bigint
  FROM leased l ORDER BY l.priority DESC, l.run_at, l.id;

  RETURN QUERY
  SELECT NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::integer, NULL::bigint, NULL::integer, NULL::text,
    NULL::text, NULL::text, NULL::bigint, NULL::bigint, NULL::text, NULL::bigint, NULL::integer, NULL::text,
    EXISTS (SELECT 1 FROM {{schema}}.jobs j WHERE j.state = {{pending}} AND j.group_key IS NOT NULL),
    (SELECT min(l.paused_until) FROM {{schema}}.job_limits l
     WHERE l.kind = 'name' AND l.paused_until > p_limits_now AND l.key = ANY (p_names)
       AND NOT EXISTS (SELECT 1 FROM {{schema}}.paused_names p WHERE p.name = l.key OR p.name = ''));
END
$$;
