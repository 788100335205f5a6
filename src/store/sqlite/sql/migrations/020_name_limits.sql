-- Limits changed while the queue runs (queue.setLimits, PUT
-- /v1/names/:name/limits, `litejobs limits set`): per job name, the fields
-- set over its definitions' `rateLimit`, `globalConcurrency` and
-- `groupConcurrency` (a field set to null: that limit is off). Every started
-- queue reads the table each second and claims by what it says.
-- `rule`: JSON { rateLimit?: { max, perMs, perGroup } | null,
-- globalConcurrency?: n | null, groupConcurrency?: n | null }.
CREATE TABLE name_limits (
  name       TEXT PRIMARY KEY,
  rule       TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
