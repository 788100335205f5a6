-- Jobs: one row per job. `state` is whatever the job machine produced.
CREATE TABLE jobs (
  id           INTEGER PRIMARY KEY,
  name         TEXT    NOT NULL,
  state        TEXT    NOT NULL,
  payload      TEXT    NOT NULL,
  key          TEXT,
  priority     INTEGER NOT NULL DEFAULT 0,
  run_at       INTEGER NOT NULL,
  attempts     INTEGER NOT NULL DEFAULT 0,
  last_error   TEXT,
  ctx          TEXT,
  retry        TEXT,
  timeout_ms   INTEGER,
  result       TEXT,
  progress     REAL,
  lease_owner  TEXT,
  lease_token  TEXT,
  locked_until INTEGER,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);

-- Idempotency keys: only rows that have one pay for the index.
CREATE UNIQUE INDEX jobs_key ON jobs (key) WHERE key IS NOT NULL;
-- The claim walks this index in order: every ORDER BY column is in it.
CREATE INDEX jobs_ready ON jobs (priority DESC, run_at, id) WHERE state = {{pending}};
-- The lease sweeper.
CREATE INDEX jobs_leased ON jobs (locked_until) WHERE state = {{processing}};
-- Jobs waiting in a delayed state (failed, or a custom machine's own): due and
-- next-due lookups seek per (state, name). Partial, so the hot path (pending →
-- processing → completed) never touches it.
-- Partial-index conditions are written as plain comparisons: an IN (...) list
-- here is evaluated as a temporary table on every row change (measured ~7×
-- slower per update).
CREATE INDEX jobs_waiting ON jobs (state, name, run_at)
  WHERE state <> {{pending}} AND state <> {{processing}} AND state <> {{completed}} AND state <> {{dead}} AND state <> {{cancelled}};
-- Pending jobs due later than they were created (delayed, retried, released):
-- the due timer's next-due lookup. A job enqueued to run now never enters it.
CREATE INDEX jobs_delayed ON jobs (name, run_at) WHERE state = {{pending}} AND run_at > created_at;
-- Finished jobs by age, for retention. A row enters it once, when it finishes.
CREATE INDEX jobs_finished ON jobs (state, updated_at)
  WHERE state = {{completed}} OR state = {{dead}} OR state = {{cancelled}};

-- Every transition after creation, for timelines and audits (can be turned
-- off). Creation itself is the job row's created_at: history() puts it first.
CREATE TABLE job_history (
  id          INTEGER PRIMARY KEY,
  job_id      INTEGER NOT NULL,
  from_state  TEXT,
  to_state    TEXT    NOT NULL,
  event       TEXT    NOT NULL,
  at          INTEGER NOT NULL,
  worker_id   TEXT,
  lease_token TEXT,
  error       TEXT
);
CREATE INDEX job_history_job ON job_history (job_id, id);
