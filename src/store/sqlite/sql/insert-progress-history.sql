-- A progress update in the history: a change of the feed, not a move (its
-- event 'job.progress', from and to the state it ran in, its value in data),
-- under the lease's owner.
INSERT INTO job_history (job_id, from_state, to_state, event, at, worker_id, lease_token, data)
SELECT id, {{processing}}, {{processing}}, 'job.progress', @at, lease_owner, @token, @progress FROM jobs WHERE id = @id
