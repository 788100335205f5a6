-- save-step.sql of the SQLite store, for the steps of every run that finished
-- one at the same time, in one autocommitted statement: $1 job ids, $2 lease
-- tokens, $3 step names, $4 results, $5 wake times, $6 attempts, $7 times,
-- one array each. It locks each job's row under its lease, then inserts the
-- steps of the jobs it holds, each job's numbered after its stored ones.
-- Answers the requests (ord) whose job is held: a save whose reply was lost
-- and is tried again finds its row, writes nothing, and still answers while
-- the lease holds.
--
-- Planned per call (prepared.ts): it finds jobs by an array of ids.
/* planned per call */ WITH r AS (
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::int[], $7::bigint[])
    WITH ORDINALITY AS r (job_id, token, name, result, wake_at, attempt, at, ord)
), held AS (
  SELECT r.* FROM r JOIN {{schema}}.jobs j ON j.id = r.job_id AND j.state = {{processing}} AND j.lease_token = r.token
  FOR NO KEY UPDATE OF j
), saved AS (
  INSERT INTO {{schema}}.job_steps (job_id, name, seq, result, wake_at, attempt, at)
  SELECT h.job_id, h.name,
    coalesce((SELECT max(seq) FROM {{schema}}.job_steps s WHERE s.job_id = h.job_id), 0) + row_number() OVER (PARTITION BY h.job_id ORDER BY h.ord),
    h.result, h.wake_at, h.attempt, h.at
  FROM held h ORDER BY h.ord
  ON CONFLICT (job_id, name) DO NOTHING
)
SELECT ord FROM held
