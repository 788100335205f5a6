-- Ungrouped due jobs of some names, along jobs_ready (claim-ready.sql of the
-- SQLite store), locked for this claim. Values written in: the claimable
-- state, the names, now, at most this many.
SELECT {{ready.columns}} FROM {{schema}}.jobs
WHERE state = {{from}} AND group_key IS NULL AND name = ANY ({{names}}) AND run_at <= {{now}}
  AND (lease_token IS NULL OR locked_until < {{now}})
ORDER BY priority DESC, run_at, id LIMIT {{limit}} FOR UPDATE SKIP LOCKED
