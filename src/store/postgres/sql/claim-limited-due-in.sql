-- Whether any of some groups (stepped over by the walk, at their limit) has a
-- due job of the names: a job held back, which the claim loop comes back for.
-- Values written in: the groups, the claimable state, now, the names.
SELECT EXISTS (SELECT 1 FROM unnest({{groups}}) AS g (key) CROSS JOIN LATERAL (
  SELECT 1 FROM {{schema}}.jobs
  WHERE state = {{from}} AND group_key = g.key AND run_at <= {{now}} AND name = ANY ({{names}}) LIMIT 1
) j) AS due
