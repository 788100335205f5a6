-- Runs that hold their jobs: a move not made by a job's own run (a cancel,
-- an operator's or a custom event) leaves the run's lease on the job as a
-- hold (src/store/sql/transition-set.sql), given back when the run ends.
-- A run that died holding one leaves a hold that has run out: the lease
-- sweep finds those here (expired-holds.sql) and gives them back, with the
-- unique keys they kept. Few rows ever match: the index stays small.
CREATE INDEX jobs_held ON jobs (locked_until) WHERE lease_token IS NOT NULL AND state <> {{processing}};
