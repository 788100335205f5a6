-- One history row per job of a claim batch, in one statement (@ids is a JSON
-- array of job ids): cheaper than a statement per claimed job. The claim
-- rule's values are filled in as in claim-lease.sql.
INSERT INTO job_history (job_id, from_state, to_state, event, at, worker_id, lease_token, error)
SELECT value, {{claim.from}}, {{claim.to}}, {{claim.event}}, @at, @owner, @token, NULL
FROM json_each(@ids)
