-- Limits changed while the queue runs (the SQLite store's migration 020):
-- per job name, the fields set over its definitions' limits, as JSON.
CREATE TABLE {{schema}}.name_limits (
  name       text COLLATE "C" PRIMARY KEY,
  rule       text NOT NULL,
  updated_at bigint NOT NULL
);
