-- The tables of a litejobs schema on PostgreSQL, mirroring the SQLite file's
-- (src/store/sqlite/schema.sql). Times are ms since the epoch. Payload,
-- result, context, retry policy and last error are JSON *text*, not jsonb:
-- values come back byte for byte as they were written. Names, states and
-- keys compare bytewise (COLLATE "C"), as SQLite's BINARY does, so listings
-- sort the same whatever the database's locale.
CREATE TABLE {{schema}}.jobs (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name         text COLLATE "C" NOT NULL,
  state        text COLLATE "C" NOT NULL,
  payload      text    NOT NULL,
  key          text COLLATE "C",
  priority     integer NOT NULL DEFAULT 0,
  run_at       bigint  NOT NULL,
  attempts     integer NOT NULL DEFAULT 0,
  last_error   text,
  ctx          text,
  retry        text,
  timeout_ms   bigint,
  result       text,
  progress     double precision,
  lease_owner  text,
  lease_token  text,
  locked_until bigint,
  created_at   bigint  NOT NULL,
  updated_at   bigint  NOT NULL
);

-- Idempotency keys: only rows that have one pay for the index.
CREATE UNIQUE INDEX jobs_key ON {{schema}}.jobs (key) WHERE key IS NOT NULL;
-- The claim walks this index in order: every ORDER BY column is in it.
CREATE INDEX jobs_ready ON {{schema}}.jobs (priority DESC, run_at, id) WHERE state = {{pending}};
-- The lease sweeper, and the processing listing.
CREATE INDEX jobs_leased ON {{schema}}.jobs (locked_until, id) WHERE state = {{processing}};
-- Jobs waiting in a delayed state (failed, or a custom machine's own).
CREATE INDEX jobs_waiting ON {{schema}}.jobs (state, name, run_at, id)
  WHERE state <> {{pending}} AND state <> {{processing}} AND state <> {{completed}} AND state <> {{dead}} AND state <> {{cancelled}};
-- Pending jobs due later than they were created: the due timer's next-due lookup.
CREATE INDEX jobs_delayed ON {{schema}}.jobs (name, run_at) WHERE state = {{pending}} AND run_at > created_at;
-- Finished jobs by age: retention and the finished listings.
CREATE INDEX jobs_finished ON {{schema}}.jobs (state, updated_at, id)
  WHERE state = {{completed}} OR state = {{dead}} OR state = {{cancelled}};

-- Every transition after creation; creation itself is the job row's
-- created_at (history() puts it first). `candidate`: which of an event's
-- guarded candidates with the same target was taken, when not the first.
CREATE TABLE {{schema}}.job_history (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job_id      bigint  NOT NULL,
  from_state  text,
  to_state    text    NOT NULL,
  event       text    NOT NULL,
  candidate   integer,
  at          bigint  NOT NULL,
  worker_id   text,
  lease_token text,
  error       text
);
CREATE INDEX job_history_job ON {{schema}}.job_history (job_id, id);

-- Paused job names; the empty name pauses the whole queue. Claims read it
-- inside their statement.
CREATE TABLE {{schema}}.paused_names (name text COLLATE "C" PRIMARY KEY, paused_at bigint NOT NULL);

-- Counters: `deleted` (jobs deleted without a transition, by retention) and
-- `migration_level` (written by the migrator).
CREATE TABLE {{schema}}.queue_meta (key text PRIMARY KEY, value bigint NOT NULL);
INSERT INTO {{schema}}.queue_meta (key, value) VALUES ('deleted', 0);
