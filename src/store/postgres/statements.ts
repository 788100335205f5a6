/**
 * The PostgreSQL store's small statements, each the counterpart of one of the
 * SQLite store's files in src/store/sqlite/sql/ (named beside it), with the
 * same semantics. Names and states are bound as arrays (`= ANY($n)`).
 */
import { render } from './sql.js';

/** Base states no delayed-state lookup reads (jobs_waiting is partial on the rest). */
const NOT_WAITING = 'state <> {{pending}} AND state <> {{processing}} AND state <> {{completed}} AND state <> {{dead}} AND state <> {{cancelled}}';

export function statements(schema: string) {
  const q = (text: string) => render(text, schema);
  return {
    // heartbeat.sql: a renewal never shortens the lease.
    heartbeat: q(`UPDATE {{schema}}.jobs SET locked_until = greatest(locked_until, $3)
      WHERE id = $1 AND state = {{processing}} AND lease_token = $2`),
    // holds-lease.sql, for a batch of leases at once: the rows by primary key, their state and token compared
    // by the caller. Before the table has statistics the planner took it for small: a condition on the state
    // read all of jobs_leased (every processing job, 9 ms at 20,000, for each read), and the bound array,
    // whose ids it counts, a sequential scan. `ANY (ARRAY(…))` it estimates at 10 ids: it reads the index.
    held: q(`SELECT id, state, lease_token FROM {{schema}}.jobs WHERE id = ANY (ARRAY(SELECT unnest($1::bigint[])))`),
    // progress.sql
    progress: q(`UPDATE {{schema}}.jobs SET progress = $3 WHERE id = $1 AND state = {{processing}} AND lease_token = $2`),
    // expired-leases.sql: a processing job with no lease at all is as good as expired (SQLite sorts NULL first).
    expired: q(`SELECT * FROM {{schema}}.jobs
      WHERE state = {{processing}} AND (locked_until IS NULL OR locked_until < $2) AND name = ANY($1::text[])
      ORDER BY locked_until NULLS FIRST, id LIMIT $3`),
    // due-jobs.sql, for every (state, name) at once, in the order the SQLite store asks them.
    due: q(`SELECT * FROM {{schema}}.jobs
      WHERE state = ANY($2::text[]) AND name = ANY($1::text[]) AND run_at <= $3 AND ${NOT_WAITING}
      ORDER BY array_position($2::text[], state::text), array_position($1::text[], name::text), run_at, id
      LIMIT $4`),
    // next-due-at.sql
    nextDue: q(`SELECT min(run_at) AS at FROM {{schema}}.jobs WHERE state = ANY($2::text[]) AND name = ANY($1::text[]) AND ${NOT_WAITING}`),
    // next-pending-at.sql: pending jobs due later than created (a job enqueued to run now is claimed, not timed).
    nextPending: q(`SELECT min(run_at) AS at FROM {{schema}}.jobs WHERE name = ANY($1::text[]) AND state = {{pending}} AND run_at > created_at`),
    get: q('SELECT * FROM {{schema}}.jobs WHERE id = $1'),
    // history.sql: the creation entry comes from the job row; the rest from job_history.
    history: q(`SELECT NULL AS from_state, CASE WHEN children_left IS NOT NULL THEN {{waitingChildren}} ELSE {{pending}} END AS to_state, 'job.enqueue' AS event, NULL::int AS candidate, created_at AS at,
        NULL AS worker_id, NULL AS lease_token, NULL AS error, 0::bigint AS seq
      FROM {{schema}}.jobs WHERE id = $1
      UNION ALL
      SELECT from_state, to_state, event, candidate, at, worker_id, lease_token, error, id AS seq
      FROM {{schema}}.job_history WHERE job_id = $1
      ORDER BY seq`),
    stats: q('SELECT state, name, count(*) AS n FROM {{schema}}.jobs GROUP BY state, name'),
    // pause.sql: idempotent; the first pause's time is kept.
    pause: q('INSERT INTO {{schema}}.paused_names (name, paused_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING'),
    resume: q('DELETE FROM {{schema}}.paused_names WHERE name = $1'),
    paused: q('SELECT name FROM {{schema}}.paused_names ORDER BY name'),
    ping: q(`SELECT value FROM {{schema}}.queue_meta WHERE key = 'migration_level'`),
    // finished-before.sql, then the deletion (purge.ts): one statement.
    purgeFinished: q(`WITH gone AS (
        DELETE FROM {{schema}}.jobs WHERE id IN (
          SELECT id FROM {{schema}}.jobs
          WHERE (state = {{completed}} OR state = {{dead}} OR state = {{cancelled}}) AND state = $1 AND updated_at < $2
          LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING id
      ), gone_history AS (
        DELETE FROM {{schema}}.job_history WHERE job_id IN (SELECT id FROM gone)
      ), gone_steps AS (
        DELETE FROM {{schema}}.job_steps WHERE job_id IN (SELECT id FROM gone)
      ), gone_logs AS (
        DELETE FROM {{schema}}.job_logs WHERE job_id IN (SELECT id FROM gone)
      ), counted AS (
        UPDATE {{schema}}.queue_meta SET value = value + (SELECT count(*) FROM gone) WHERE key = 'deleted' AND EXISTS (SELECT 1 FROM gone)
      )
      SELECT count(*) AS n FROM gone`),
    expiredCount: q(`SELECT count(*) AS n FROM {{schema}}.jobs WHERE state = {{processing}} AND (locked_until IS NULL OR locked_until < $1)`),
    sizes: q(`SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes,
        current_setting('block_size')::bigint AS page_size,
        pg_size_bytes(current_setting('shared_buffers'))::bigint AS cache_bytes
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind = 'r'`),
    notify: 'SELECT pg_notify($1, $2)',
  };
}

export type Statements = ReturnType<typeof statements>;
