-- Concurrency groups and limits (enqueue option `group`; defineJob's
-- `groupConcurrency`, `globalConcurrency`, `rateLimit`; RateLimitedError).
--   group_key  the job's group; NULL: none
ALTER TABLE jobs ADD COLUMN group_key TEXT;

-- Grouped jobs leave jobs_ready: a claim walks it for ungrouped jobs without
-- stepping over a grouped backlog, and takes grouped jobs group by group
-- along jobs_grouped (claim-group-walk.sql), so a busy group holds up no other.
DROP INDEX jobs_ready;
CREATE INDEX jobs_ready ON jobs (priority DESC, run_at, id) WHERE state = {{pending}} AND indexed = 1 AND group_key IS NULL;
CREATE INDEX jobs_grouped ON jobs (group_key, priority DESC, run_at, id) WHERE state = {{pending}} AND group_key IS NOT NULL;
-- A group's leased jobs, counted by a claim for each group it visits: only
-- grouped jobs pay for it.
CREATE INDEX jobs_group_running ON jobs (group_key) WHERE state = {{processing}} AND group_key IS NOT NULL;

-- One row per limit that needs state shared by every process:
--   kind          'name' | 'group' | 'name-group' (key: JSON [name, group])
--   concurrency   group: its concurrency, set for that group alone
--   spent         rate limit: JSON [[at, n], …], claims spent and not yet returned
--   paused_until  no claim of the name or group before (a RateLimitedError)
CREATE TABLE job_limits (
  kind         TEXT NOT NULL,
  key          TEXT NOT NULL,
  concurrency  INTEGER,
  spent        TEXT,
  paused_until INTEGER,
  updated_at   INTEGER NOT NULL,
  PRIMARY KEY (kind, key)
) WITHOUT ROWID;
