-- A published value in the history: a change of the feed, not a move (its
-- event 'job.publish', from and to the state it ran in, { key, value } in
-- data), under the lease's owner.
INSERT INTO job_history (job_id, from_state, to_state, event, at, worker_id, lease_token, data)
SELECT id, {{processing}}, {{processing}}, 'job.publish', @at, lease_owner, @token, json_object('key', @key, 'value', json(@value)) FROM jobs WHERE id = @id
