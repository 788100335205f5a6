-- The lines handlers log with ctx.log, kept with their job (and deleted with
-- it), as in the SQLite file's migration 011: a job's lines are numbered in
-- the order they were logged, and only its newest are kept (min(seq) - 1
-- lines were dropped).
CREATE TABLE {{schema}}.job_logs (
  job_id   bigint NOT NULL,
  -- bigint: numbers keep growing past the lines trimmed away, over every attempt of a long-lived job.
  seq      bigint NOT NULL,
  at       bigint NOT NULL,
  attempt  integer NOT NULL,
  level    text COLLATE "C" NOT NULL,
  message  text NOT NULL,
  fields   text,
  PRIMARY KEY (job_id, seq)
);
