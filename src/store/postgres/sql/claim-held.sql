-- The jobs still held under the tokens of claims whose reply was lost with
-- the connection (claim.ts takes them back): $1 lease tokens, $2 the claimed
-- state. In claim order, with the token that holds each.
SELECT {{ready.columns}}, lease_token FROM {{schema}}.jobs
WHERE lease_token = ANY($1::text[]) AND state = $2
ORDER BY priority DESC, run_at, id
