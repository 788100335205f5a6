-- The lines handlers log with ctx.log, kept with their job (and deleted with it):
--   seq      the job's lines in the order they were logged (1, 2, …); only the
--            newest lines of a job are kept, so min(seq) - 1 lines were dropped
--   at       when it was logged, ms since the epoch
--   attempt  the attempt that logged it
--   level    pino's level name: trace, debug, info, warn, error, fatal
--   message  the message, cut to a bounded size
--   fields   JSON text of the line's own fields (an object), bounded; NULL: none
-- Clustered by job: a job's lines are read, trimmed and deleted together.
CREATE TABLE job_logs (
  job_id   INTEGER NOT NULL,
  seq      INTEGER NOT NULL,
  at       INTEGER NOT NULL,
  attempt  INTEGER NOT NULL,
  level    TEXT NOT NULL,
  message  TEXT NOT NULL,
  fields   TEXT,
  PRIMARY KEY (job_id, seq)
) WITHOUT ROWID;
