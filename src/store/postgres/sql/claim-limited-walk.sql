-- The walk over groups (claim-group-walk.sql of the SQLite store), all its
-- steps in one statement. Values written in: the claimable state, the cursor
-- (the group the last walk stopped after), now, the names, the groups to step
-- over (paused, or at their limit), at most this many groups.
--
-- Each step of a recursive CTE seeks the next group holding a pending job
-- along jobs_grouped: first the groups after the cursor, then from the start
-- up to it. Each group not stepped over offers its first due job of the
-- names, if it has one. A group stepped over costs one index step, not a read
-- of its jobs. The walk is read lazily: it stops at the limit.
WITH RECURSIVE after_cursor (g) AS (
  SELECT (SELECT group_key FROM {{schema}}.jobs WHERE state = {{from}} AND group_key IS NOT NULL AND group_key > {{cursor}}
          ORDER BY group_key LIMIT 1)
  UNION ALL
  SELECT (SELECT group_key FROM {{schema}}.jobs WHERE state = {{from}} AND group_key IS NOT NULL AND group_key > w.g
          ORDER BY group_key LIMIT 1)
  FROM after_cursor w WHERE w.g IS NOT NULL
), up_to_cursor (g) AS (
  SELECT (SELECT group_key FROM {{schema}}.jobs WHERE state = {{from}} AND group_key IS NOT NULL AND group_key > '' AND group_key <= {{cursor}}
          ORDER BY group_key LIMIT 1)
  WHERE {{cursor}} <> ''
  UNION ALL
  SELECT (SELECT group_key FROM {{schema}}.jobs WHERE state = {{from}} AND group_key IS NOT NULL AND group_key > w.g AND group_key <= {{cursor}}
          ORDER BY group_key LIMIT 1)
  FROM up_to_cursor w WHERE w.g IS NOT NULL
), walk (g) AS (
  SELECT g FROM after_cursor WHERE g IS NOT NULL
  UNION ALL
  SELECT g FROM up_to_cursor WHERE g IS NOT NULL
)
SELECT h.* FROM walk w CROSS JOIN LATERAL (
  SELECT {{ready.columns}} FROM {{schema}}.jobs
  WHERE state = {{from}} AND group_key = w.g AND run_at <= {{now}} AND (lease_token IS NULL OR locked_until < {{now}}) AND name = ANY ({{names}})
  ORDER BY priority DESC, run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
) h
WHERE w.g <> ALL ({{skip}})
LIMIT {{limit}}
