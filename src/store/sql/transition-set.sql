-- What a move writes, for both stores: the SET of the SQLite store's
-- transition.sql and of the PostgreSQL store's transition statements (one
-- request at a time, and a batch of them). `:name` is a value of the move,
-- which each store binds its own way (`@name`; `$n`; a column of the batch's
-- requests); `j.` is the job's row as it was.
--
-- A move into processing (a custom machine's edge) keeps the lease. A move
-- out of it leaves the lease behind, unless it keeps it as a hold
-- (`:keepsHold`: a move not made by the job's own run, e.g. a cancel, an
-- operator's or a custom event, while a run holds the job): the run goes on
-- in its process until its handler returns, renewing the hold, and no claim
-- takes the job meanwhile (release-hold.sql gives it back). A unique key is given back when the job
-- leaves the states its span guards (records.ts UniqueSpan), except that a
-- key of span 'active' or longer stays while a run holds its job. The
-- version moves on every move: each compare-and-set names the version it was
-- decided on.
state = :to,
attempts = :attempts,
last_error = :lastError,
ctx = :ctx,
run_at = coalesce(:runAt, j.run_at),
result = coalesce(:result, j.result),
lease_owner = CASE WHEN :to = {{processing}} OR :keepsHold THEN j.lease_owner END,
lease_token = CASE WHEN :to = {{processing}} OR :keepsHold THEN j.lease_token END,
locked_until = CASE WHEN :to = {{processing}} OR :keepsHold THEN j.locked_until END,
unique_key = CASE WHEN j.unique_span >= :uniqueNeed OR (:keepsHold AND j.lease_token IS NOT NULL AND j.unique_span >= {{span.active}}) THEN j.unique_key END,
updated_at = :at,
version = j.version + 1
