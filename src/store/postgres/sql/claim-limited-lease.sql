-- A limited claim's lease (claim-lease.sql of the SQLite store) and its
-- history rows. Values written in: the claimed and the claimable state, the
-- attempts a claim adds, the lease (owner, token, end), now, the chosen job
-- ids, the history event, and whether to record history.
--
-- The jobs are found by primary key from an array the planner takes for a
-- handful of ids (`ANY (ARRAY(…))` is estimated at 10): joined, it hashed the
-- whole table when it took the table for small. The claimed state holds
-- unique keys of span 'active' or longer (records.ts UniqueSpan).
WITH leased AS (
  UPDATE {{schema}}.jobs j
  SET state = {{claimed}}, attempts = j.attempts + {{attempts}}, lease_owner = {{owner}}, lease_token = {{token}},
    locked_until = {{lockedUntil}}, updated_at = {{now}}, version = j.version + 1,
    unique_key = CASE WHEN j.unique_span >= {{span.active}} THEN j.unique_key END
  WHERE j.id = ANY (ARRAY(SELECT unnest({{ids}}))) AND j.state = {{from}}
  RETURNING j.id
), recorded AS (
  INSERT INTO {{schema}}.job_history (job_id, from_state, to_state, event, at, worker_id, lease_token)
  SELECT id, {{from}}, {{claimed}}, {{event}}, {{now}}, {{owner}}, {{token}} FROM leased WHERE {{history}}
)
SELECT count(*) AS n FROM leased
