-- A limited claim's first request, inside its transaction (claim-limited.ts),
-- sent in the simple protocol with its values written in: several statements
-- in one round trip, and the planner sees that `state = 'pending'` matches
-- the partial indexes. Values: the lock's key, the database's time
-- for pauses (limitsNow), the claimed and the claimable state.
--
-- The planner settings hold for the claim's transaction only (see
-- claim_ready in migration 009 for why). Then the lock that serializes
-- limited claims (every process's, as SQLite's BEGIN IMMEDIATE does), so the
-- facts read after it include every earlier claim's leases and spends. Then
-- the facts, as one row of JSON arrays: paused names (paused.sql), names
-- paused by a RateLimitedError, the name and group limit rows
-- (limits-active.sql of the SQLite store), the jobs leased now by name and
-- group (claim-running-names.sql), and whether any grouped job is pending.
SET LOCAL enable_bitmapscan = off; SET LOCAL jit = off;
SELECT pg_advisory_xact_lock(hashtext({{lockKey}}));
SELECT
  (SELECT coalesce(json_agg(name), '[]') FROM {{schema}}.paused_names) AS paused,
  (SELECT coalesce(json_agg(json_build_array(key, paused_until)), '[]') FROM {{schema}}.job_limits
    WHERE kind = 'name' AND paused_until > {{limitsNow}}) AS name_pauses,
  (SELECT coalesce(json_agg(json_build_array(kind, key, concurrency, spent, paused_until)), '[]') FROM {{schema}}.job_limits
    WHERE kind <> 'name-group' AND (concurrency IS NOT NULL OR paused_until > {{limitsNow}} OR spent IS NOT NULL)) AS limits,
  (SELECT coalesce(json_agg(json_build_array(name, group_key, n)), '[]') FROM (
    SELECT name, group_key, count(*) AS n FROM {{schema}}.jobs WHERE state = {{claimed}} GROUP BY name, group_key) r) AS running,
  EXISTS (SELECT 1 FROM {{schema}}.jobs WHERE state = {{from}} AND group_key IS NOT NULL) AS grouped
