-- Up to n due jobs of each of some groups, in claim order (claim-group-heads.sql
-- of the SQLite store), locked for this claim. Values written in: the groups
-- and how many of each, the claimable state, now, the names.
SELECT h.* FROM unnest({{groups}}, {{counts}}) AS g (key, n) CROSS JOIN LATERAL (
  SELECT {{ready.columns}} FROM {{schema}}.jobs
  WHERE state = {{from}} AND group_key = g.key AND run_at <= {{now}} AND (lease_token IS NULL OR locked_until < {{now}}) AND name = ANY ({{names}})
  ORDER BY priority DESC, run_at, id LIMIT g.n FOR UPDATE SKIP LOCKED
) h
