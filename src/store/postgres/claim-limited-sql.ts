/**
 * The statements of a limited claim (claim-limited.ts), the counterparts of
 * the SQLite store's claim-running, limits-active, claim-ready,
 * claim-group-walk, claim-group-heads, limits-buckets, claim-lease and
 * limits-spend files. They are sent in the simple protocol with their values
 * written in as literals, as the fast claim is (claim.ts): the planner sees
 * that `state = 'pending'` matches the partial indexes jobs_ready and
 * jobs_grouped, and several statements go in one round trip.
 */
import type { ClaimRule } from '../store.js';
import { literal, render } from './sql.js';

/** What a claim reads of a pending job: the columns it can hold (the rest are NULL before a claim, or written by it). */
export const READY_COLUMNS = 'id, name, payload, key, priority, run_at, attempts, last_error, ctx, retry, timeout_ms, created_at, group_key, parent_id, version';

const ints = (values: readonly number[]) => `ARRAY[${values.map((v) => literal(v)).join(', ')}]::int[]`;
const ids = (values: readonly number[]) => `ARRAY[${values.map((v) => literal(v)).join(', ')}]::bigint[]`;

export interface ClaimTerms {
  schema: string;
  rule: ClaimRule;
  now: number;
  names: readonly string[];
}

export function limitedStatements(t: ClaimTerms) {
  const q = (text: string) => render(text, t.schema);
  const from = literal(t.rule.from);
  const now = literal(t.now);
  const names = literal(t.names);
  /** Due jobs of the claimed state, in claim order, locked for this claim. */
  const due = (where: string, limit: string) =>
    q(`SELECT ${READY_COLUMNS} FROM {{schema}}.jobs
       WHERE state = ${from} AND ${where} AND run_at <= ${now}
       ORDER BY priority DESC, run_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED`);
  /** The next group after `after` (and up to `upto`) holding a pending job: one step along jobs_grouped. */
  const nextGroup = (after: string, upto: string | null) =>
    `(SELECT group_key FROM {{schema}}.jobs WHERE state = ${from} AND group_key IS NOT NULL AND group_key > ${after}${upto === null ? '' : ` AND group_key <= ${upto}`}
      ORDER BY group_key LIMIT 1)`;

  return {
    /**
     * Run first, inside the claim's transaction: the lock that serializes
     * limited claims (every process's, as SQLite's BEGIN IMMEDIATE does), so
     * the facts read after it include every earlier claim's leases and
     * spends. Then the facts, as one row of JSON arrays: paused names
     * (paused.sql), names paused by a RateLimitedError, the name and group
     * limit rows (limits-active.sql), the jobs leased now by name and group
     * (claim-running.sql), and whether any grouped job is pending.
     */
    facts: q(`SET LOCAL enable_bitmapscan = off; SET LOCAL jit = off;
      SELECT pg_advisory_xact_lock(hashtext(${literal(`litejobs claim ${t.schema}`)}));
      SELECT
        (SELECT coalesce(json_agg(name), '[]') FROM {{schema}}.paused_names) AS paused,
        (SELECT coalesce(json_agg(json_build_array(key, paused_until)), '[]') FROM {{schema}}.job_limits
          WHERE kind = 'name' AND paused_until > ${now}) AS name_pauses,
        (SELECT coalesce(json_agg(json_build_array(kind, key, concurrency, spent, paused_until)), '[]') FROM {{schema}}.job_limits
          WHERE kind <> 'name-group' AND (concurrency IS NOT NULL OR paused_until > ${now} OR spent IS NOT NULL)) AS limits,
        (SELECT coalesce(json_agg(json_build_array(name, group_key, n)), '[]') FROM (
          SELECT name, group_key, count(*) AS n FROM {{schema}}.jobs WHERE state = ${literal(t.rule.to)} GROUP BY name, group_key) r) AS running,
        EXISTS (SELECT 1 FROM {{schema}}.jobs WHERE state = ${from} AND group_key IS NOT NULL) AS grouped`),

    /** Ungrouped due jobs of these names, along jobs_ready (claim-ready.sql). */
    ready: (of: readonly string[], limit: number) => due(`group_key IS NULL AND name = ANY (${literal(of)})`, literal(limit)),

    /**
     * The walk over groups (claim-group-walk.sql, all steps in one statement):
     * each step of the recursive CTE seeks the next group along jobs_grouped,
     * first those after `cursor`, then from the start up to it; each group
     * not in `skip` offers its first due job of the names, if it has one. A
     * skipped group costs one index step, not a read of its jobs. The walk is
     * read lazily: it stops at `limit` groups with a job.
     */
    walk: (cursor: string, skip: readonly string[], limit: number) =>
      q(`WITH RECURSIVE after_cursor (g) AS (
          SELECT ${nextGroup(literal(cursor), null)}
          UNION ALL
          SELECT ${nextGroup('w.g', null)} FROM after_cursor w WHERE w.g IS NOT NULL
        ), up_to_cursor (g) AS (
          SELECT ${nextGroup(`''`, literal(cursor))} WHERE ${literal(cursor)} <> ''
          UNION ALL
          SELECT ${nextGroup('w.g', literal(cursor))} FROM up_to_cursor w WHERE w.g IS NOT NULL
        ), walk (g) AS (
          SELECT g FROM after_cursor WHERE g IS NOT NULL
          UNION ALL
          SELECT g FROM up_to_cursor WHERE g IS NOT NULL
        )
        SELECT h.* FROM walk w CROSS JOIN LATERAL (
          SELECT ${READY_COLUMNS} FROM {{schema}}.jobs
          WHERE state = ${from} AND group_key = w.g AND run_at <= ${now} AND name = ANY (${names})
          ORDER BY priority DESC, run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
        ) h
        WHERE w.g <> ALL (${literal(skip)})
        LIMIT ${literal(limit)}`),

    /** Whether any of these groups (skipped by the walk, at their limit) has a due job of the names: a job held back. */
    dueIn: (groups: readonly string[]) =>
      q(`SELECT EXISTS (SELECT 1 FROM unnest(${literal(groups)}) AS g (key) CROSS JOIN LATERAL (
          SELECT 1 FROM {{schema}}.jobs
          WHERE state = ${from} AND group_key = g.key AND run_at <= ${now} AND name = ANY (${names}) LIMIT 1
        ) j) AS due`),

    /** Up to `limits[i]` due jobs of group `groups[i]`, in claim order (claim-group-heads.sql). */
    heads: (groups: readonly string[], limits: readonly number[]) =>
      q(`SELECT h.* FROM unnest(${literal(groups)}, ${ints(limits)}) AS g (key, n) CROSS JOIN LATERAL (
          SELECT ${READY_COLUMNS} FROM {{schema}}.jobs
          WHERE state = ${from} AND group_key = g.key AND run_at <= ${now} AND name = ANY (${names})
          ORDER BY priority DESC, run_at, id LIMIT g.n FOR UPDATE SKIP LOCKED
        ) h`),

    /** Buckets of one group of a name (limits-buckets.sql). */
    buckets: (keys: readonly string[]) => q(`SELECT key, spent FROM {{schema}}.job_limits WHERE kind = 'name-group' AND key = ANY (${literal(keys)})`),

    /**
     * The lease (the fast claim's, claim.ts), by primary key from an array
     * the planner takes for a handful of ids, with the claim's history rows.
     */
    lease: (chosen: readonly number[], o: { owner: string; token: string; lockedUntil: number; history: boolean }) => {
      const owner = literal(o.owner);
      const token = literal(o.token);
      const record = o.history
        ? `, recorded AS (
             INSERT INTO {{schema}}.job_history (job_id, from_state, to_state, event, at, worker_id, lease_token)
             SELECT id, ${from}, ${literal(t.rule.to)}, ${literal(t.rule.event)}, ${now}, ${owner}, ${token} FROM leased
           )`
        : '';
      return q(`WITH leased AS (
          UPDATE {{schema}}.jobs j
          SET state = ${literal(t.rule.to)}, attempts = j.attempts + ${literal(t.rule.attempts)}, lease_owner = ${owner}, lease_token = ${token},
            locked_until = ${literal(o.lockedUntil)}, updated_at = ${now}, version = j.version + 1,
            unique_key = CASE WHEN j.unique_span >= {{span.active}} THEN j.unique_key END
          WHERE j.id = ANY (ARRAY(SELECT unnest(${ids(chosen)}))) AND j.state = ${from}
          RETURNING j.id
        )${record}
        SELECT count(*) AS n FROM leased`);
    },

    /** Buckets' logs after the claim spent from them (limits-spend.sql). */
    spend: (rows: ReadonlyArray<{ kind: string; key: string; spent: string }>) =>
      q(`INSERT INTO {{schema}}.job_limits (kind, key, spent, updated_at)
        SELECT kind, key, spent, ${now} FROM unnest(${literal(rows.map((r) => r.kind))}, ${literal(rows.map((r) => r.key))}, ${literal(rows.map((r) => r.spent))}) AS u (kind, key, spent)
        ON CONFLICT (kind, key) DO UPDATE SET spent = excluded.spent, updated_at = excluded.updated_at`),
  };
}
