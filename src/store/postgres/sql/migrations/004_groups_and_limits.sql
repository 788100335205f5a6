-- Concurrency groups and limits (enqueue option `group`; defineJob's
-- `groupConcurrency`, `globalConcurrency`, `rateLimit`; RateLimitedError).
--   group_key  the job's group; NULL: none
ALTER TABLE {{schema}}.jobs ADD COLUMN group_key text COLLATE "C";

-- Grouped jobs leave jobs_ready: a claim walks it for ungrouped jobs without
-- stepping over a grouped backlog, and takes grouped jobs group by group
-- along jobs_grouped, so a busy group holds up no other.
DROP INDEX {{schema}}.jobs_ready;
CREATE INDEX jobs_ready ON {{schema}}.jobs (priority DESC, run_at, id) WHERE state = {{pending}} AND group_key IS NULL;
CREATE INDEX jobs_grouped ON {{schema}}.jobs (group_key, priority DESC, run_at, id) WHERE state = {{pending}} AND group_key IS NOT NULL;
-- A group's leased jobs, counted by a claim for each group it visits: only
-- grouped jobs pay for it.
CREATE INDEX jobs_group_running ON {{schema}}.jobs (group_key) WHERE state = {{processing}} AND group_key IS NOT NULL;

-- One row per limit that needs state shared by every process:
--   kind          'name' | 'group' | 'name-group' (key: JSON [name, group])
--   concurrency   group: its concurrency, set for that group alone
--   spent         rate limit: JSON [[at, n], …], claims spent and not yet returned
--   paused_until  no claim of the name or group before (a RateLimitedError)
CREATE TABLE {{schema}}.job_limits (
  kind         text COLLATE "C" NOT NULL,
  key          text COLLATE "C" NOT NULL,
  concurrency  integer,
  spent        text,
  paused_until bigint,
  updated_at   bigint NOT NULL,
  PRIMARY KEY (kind, key)
);
