-- A batch of moves whose jobs are all distinct, in one statement: the
-- compare-and-set of transition-move.sql (or the delete of
-- transition-purge.sql, for a request with a purge_at) for every request at once, with their history rows,
-- the deletion of purged jobs' steps and log lines (their outcome is kept and
-- their history stays: keep-outcome.sql), and the wake-ups. Answers the position (ord) of each request that moved its job, and
-- whether it deleted it.
--
-- The requests come unnested from arrays, $1 … $19, one per field
-- (transition.ts BATCH_COLUMNS), or as the value itself where every request
-- has the same (the requests fragment says which). $20 the wake-up's
-- channel, $21 its payload, $22 names with a global concurrency, $23 the
-- payload for waiters on finished jobs (null: none), $24 the payload for
-- claim loops when a job moved into a state they wait for (null: none).
--
-- The jobs are found by primary key from an array the planner takes for a
-- handful of ids (`ANY (ARRAY(…))` is estimated at 10): it then reads the
-- index, whatever it believes of the table (the jobIds part; a move of one job,
-- prepared once per connection, binds its id as a value, `j.id = $1`: a
-- generic plan made on a small table reads the index for that too, where
-- the array's read the whole table once the table had grown). Joined on r alone (or on the
-- bound array, whose 400 ids it counts), it read the whole table into a hash
-- for every batch when it took the table for small (no statistics yet after
-- a burst): 26 ms, then 6 ms, for 400 completions among 50k jobs, against ~2 ms.
--
-- A job leaving the claimed state frees a slot of its group or of its name's
-- global concurrency: the claim loops held back for one hear of it at
-- commit. A job finishing wakes those waiting for its result (notify.ts). A
-- job moved (not deleted) into a state that is neither claimed nor finished
-- (back in pending, or delayed) gives other instances' claim loops work or a
-- due time: they hear of it at commit, with no transaction of its own
-- around the statement.
--
-- Planned per call (prepared.ts): it finds jobs by an array of ids.
/* planned per call */ WITH r AS ({{requests}}),
moved AS (
  -- A purge whose job's throttle window is still open at purge_at (the database's time) moves it instead.
  -- The window is read from columns written once, at insert (not unique_key, which an enqueue gives
  -- back once the window passed): a row another transaction changed while this one waited for its
  -- lock is judged alike by both branches, so one of them takes it.
  UPDATE {{schema}}.jobs j SET {{set}}
  FROM r
  WHERE (r.purge_at IS NULL OR coalesce(j.unique_kind = 'throttle' AND j.unique_until > r.purge_at, false)) AND {{jobIds}} AND j.id = r.id
    AND j.version = r.version AND j.state = r.from_state AND j.lease_token IS NOT DISTINCT FROM r.token
    AND (r.expired_by IS NULL OR j.locked_until IS NULL OR j.locked_until < r.expired_by)
  RETURNING r.ord, r.from_state, r.to_state, j.name, j.group_key
),
purged AS (
  DELETE FROM {{schema}}.jobs j USING r
  WHERE r.purge_at IS NOT NULL AND NOT coalesce(j.unique_kind = 'throttle' AND j.unique_until > r.purge_at, false) AND {{jobIds}} AND j.id = r.id
    AND j.version = r.version AND j.state = r.from_state AND j.lease_token IS NOT DISTINCT FROM r.token
    AND (r.expired_by IS NULL OR j.locked_until IS NULL OR j.locked_until < r.expired_by)
  RETURNING r.ord, j.id, r.from_state, r.to_state, j.name, j.group_key, j.result, j.created_at,
    CASE WHEN j.children_left IS NOT NULL THEN {{waitingChildren}} ELSE {{pending}} END AS born
),
kept AS (
  INSERT INTO {{schema}}.job_outcomes (id, name, state, born, result, last_error, created_at, finished_at)
  SELECT p.id, p.name, p.to_state, p.born, coalesce(r.result, p.result), r.last_error, p.created_at, r.at
  FROM purged p JOIN r USING (ord)
),
purged_steps AS (DELETE FROM {{schema}}.job_steps WHERE job_id IN (SELECT id FROM purged)),
purged_logs AS (DELETE FROM {{schema}}.job_logs WHERE job_id IN (SELECT id FROM purged)),
counted AS (
  UPDATE {{schema}}.queue_meta SET value = value + (SELECT count(*) FROM purged)
  WHERE key = 'deleted' AND EXISTS (SELECT 1 FROM purged)
),
recorded AS (
  INSERT INTO {{schema}}.job_history (job_id, from_state, to_state, event, candidate, at, worker_id, lease_token, error)
  SELECT r.id, r.from_state, r.to_state, r.event, r.candidate, r.at, r.worker_id, r.token, r.error
  FROM r JOIN (SELECT ord FROM moved UNION ALL SELECT ord FROM purged) AS done USING (ord) WHERE {{history}} ORDER BY r.ord
)
SELECT ord, false AS gone FROM moved UNION ALL SELECT ord, true FROM purged
UNION ALL
SELECT NULL, NULL FROM (SELECT pg_notify($20, $21)) AS notified
WHERE $20::text IS NOT NULL AND EXISTS (
  SELECT 1 FROM (SELECT * FROM moved UNION ALL SELECT ord, from_state, to_state, name, group_key FROM purged) AS done
  WHERE from_state = {{processing}} AND to_state <> {{processing}} AND (group_key IS NOT NULL OR name = ANY ($22::text[]))
)
UNION ALL
SELECT NULL, NULL FROM (SELECT pg_notify($20, $23)) AS finished
WHERE $23::text IS NOT NULL AND EXISTS (
  SELECT 1 FROM (SELECT to_state FROM moved UNION ALL SELECT to_state FROM purged) AS done
  WHERE to_state = {{completed}} OR to_state = {{dead}} OR to_state = {{cancelled}}
)
UNION ALL
SELECT NULL, NULL FROM (SELECT pg_notify($20, $24)) AS work
WHERE $24::text IS NOT NULL AND EXISTS (
  SELECT 1 FROM moved WHERE to_state <> {{processing}} AND to_state <> {{completed}} AND to_state <> {{dead}} AND to_state <> {{cancelled}}
)
