/**
 * The claim and the batched transitions keep their plans while the planner
 * knows nothing of the jobs table (a burst of jobs after an idle spell,
 * before autovacuum analyzes it): the claim walks jobs_ready in claim order
 * and stops at its limit, a batch reads its jobs by primary key. Neither may
 * read the whole backlog. And the values a claim writes into its text come
 * back as they were.
 */
import { describe, expect, it } from 'vitest';
import { claimStatement } from '../../src/store/postgres/claim.js';
import { limitedStatements } from '../../src/store/postgres/claim-limited-sql.js';
import { statements } from '../../src/store/postgres/statements.js';
import { batchValues, oneRequestValues, transitionStatements } from '../../src/store/postgres/transition.js';
import { literal } from '../../src/store/postgres/sql.js';
import type { Client } from '../../src/store/postgres/driver.js';
import type { Store } from '../../src/store/store.js';
import { CLAIM_RULE } from '../helpers/claim-rule.js';
import { pgClient } from '../helpers/postgres.js';
import { claimOf, job, move, NOW, usePgStores } from './fixture.js';

const pg = usePgStores();
const BACKLOG = 5000;

/** The plan's lines: the last result of a (possibly multi-statement) EXPLAIN. */
async function plan(client: Client, text: string, values?: unknown[]): Promise<string> {
  const answer = (await client.query(text, values)) as unknown as { rows: Array<Record<string, string>> } | Array<{ rows: Array<Record<string, string>> }>;
  const { rows } = Array.isArray(answer) ? answer.at(-1)! : answer;
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

/** The plan of `text` under the limited claim's settings (claim-limited-sql.ts), which hold for its transaction only. */
async function explainLast(client: Client, text: string): Promise<string> {
  try {
    return await plan(client, `BEGIN; SET LOCAL enable_bitmapscan = off; SET LOCAL jit = off; EXPLAIN ${text}`);
  } finally {
    await client.query('ROLLBACK');
  }
}

/** A schema whose jobs table holds a backlog the planner has no statistics for (`grouped`: half of it in 500 groups). */
async function backlog(history = true, grouped = false) {
  const schema = pg.schema();
  const store = pg.open({ schema, history });
  for (let i = 0; i < BACKLOG; i += 1000) await store.insert(Array.from({ length: 1000 }, (_, k) => job(grouped && k % 2 === 1 ? { group: `g${(i + k) % 500}` } : {})), NOW);
  const admin = await pgClient();
  const { rows } = await admin.query<{ analyzed: boolean }>(
    'SELECT last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2',
    [schema, 'jobs'],
  );
  return { schema, store, admin, analyzed: rows[0]?.analyzed === true };
}

describe('without statistics', () => {
  it('a claim walks jobs_ready in order and reads no more of the backlog than it takes, planned once per connection', async () => {
    const { schema, admin, analyzed } = await backlog();
    try {
      expect(analyzed).toBe(false);
      // The plans claim_ready runs, as auto_explain logs them to this session.
      const logged: string[] = [];
      (admin as unknown as NodeJS.EventEmitter).on('notice', (n: { message?: string }) => void logged.push(n.message ?? ''));
      await admin.query(`LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET client_min_messages = log`);
      const claim = (token: string) => admin.query(claimStatement(schema), [['a'], NOW, 400, 'w1', token, NOW + 1000, CLAIM_RULE.attempts, CLAIM_RULE.event, true, NOW]);
      const first = await claim('t1');
      expect(first.rows).toHaveLength(401); // 400 jobs, then the probe's row
      const plans = logged.filter((m) => m.includes('jobs_ready'));
      expect(plans.join('\n')).toMatch(/Index Scan using jobs_ready on jobs/);
      expect(plans.join('\n')).not.toMatch(/(Bitmap Heap Scan|Seq Scan) on jobs\b/);
      // Generic: the parameters stay parameters in the plan, which the next calls reuse.
      expect(plans.join('\n')).toMatch(/run_at <= \$\d+|run_at <= p_now/);
      logged.length = 0;
      const second = await claim('t2');
      expect(second.rows).toHaveLength(401);
      expect(second.rows.at(-1)).toMatchObject({ id: null, grouped: false, pause_ends: null });
      expect(logged.filter((m) => m.includes('jobs_ready')).join('\n')).toMatch(/Index Scan using jobs_ready on jobs/);
    } finally {
      await admin.end();
    }
  });

  it('a limited claim steps along jobs_grouped group by group, reads ungrouped jobs along jobs_ready, and leases by primary key', async () => {
    const { schema, admin, analyzed } = await backlog(true, true);
    try {
      expect(analyzed).toBe(false);
      const s = limitedStatements({ schema, rule: CLAIM_RULE, now: NOW, limitsNow: NOW, names: ['a'] });
      const walk = await explainLast(admin, s.walk('g250', ['g251', 'g252'], 50));
      // Each step is one seek into jobs_grouped, and each group's head another: no read of the whole backlog, no sort.
      expect(walk).toMatch(/Index Only Scan using jobs_grouped on jobs/);
      expect(walk).toMatch(/Index Scan using jobs_grouped on jobs/);
      expect(walk).not.toMatch(/Seq Scan on jobs\b|Sort\b/);
      const ready = await explainLast(admin, s.ready(['a'], 400));
      expect(ready).toMatch(/Index Scan using jobs_ready on jobs/);
      expect(ready).not.toMatch(/Seq Scan on jobs\b|Sort\b/);
      const heads = await explainLast(admin, s.heads(['g1', 'g2'], [5, 5]));
      expect(heads).toMatch(/Index Scan using jobs_grouped on jobs/);
      expect(heads).not.toMatch(/Seq Scan on jobs\b|Sort\b/);
      const lease = await explainLast(admin, s.lease(Array.from({ length: 400 }, (_, i) => i + 1), { owner: 'w', token: 't', lockedUntil: NOW + 1000, history: true }));
      expect(lease).toMatch(/Index Scan using jobs_pkey on jobs/);
      expect(lease).not.toMatch(/Seq Scan on jobs\b/);
    } finally {
      await admin.end();
    }
  });

  it('a start check reads its leases by primary key, not every processing job', async () => {
    const { schema, store, admin, analyzed } = await backlog(false);
    try {
      expect(analyzed).toBe(false);
      const claimed = await claimOf(store, { limit: 2000 });
      expect(claimed).toHaveLength(2000);
      const lines = await plan(admin, `EXPLAIN ${statements(schema).held}`, [claimed.slice(0, 50).map((c) => c.id)]);
      expect(lines).toMatch(/Index Scan using jobs_pkey on jobs|Bitmap Index Scan on jobs_pkey/);
      expect(lines).not.toMatch(/jobs_leased|Seq Scan on jobs\b/);
      // And it answers as before: held under its token while processing.
      const held = await store.held([...claimed.slice(0, 3).map((c) => ({ id: c.id, token: c.leaseToken })), { id: claimed[3]!.id, token: 'another' }]);
      expect(held).toEqual([true, true, true, false]);
    } finally {
      await admin.end();
    }
  });

  it('a batch of transitions reads its jobs by primary key, not the whole table', async () => {
    const { schema, store, admin } = await backlog(false);
    try {
      const claimed = await claimOf(store, { limit: 400 });
      expect(claimed).toHaveLength(400);
      const reqs = claimed.map((c, i) => move({ id: c.id, version: c.version, from: 'processing', token: c.leaseToken, to: 'completed', purge: i % 2 === 0 }));
      const { constant, values } = batchValues(reqs);
      // Tokens differ per claim; states, events and most fields are the same for every request.
      expect(constant.filter(Boolean).length).toBeGreaterThan(5);
      const lines = await plan(admin, `EXPLAIN ${transitionStatements(schema, false).batch(constant)}`, values);
      expect(lines).toMatch(/Index Scan using jobs_pkey on jobs|Bitmap Index Scan on jobs_pkey/);
      expect(lines).not.toMatch(/Seq Scan on jobs\b/);
    } finally {
      await admin.end();
    }
  });
});

it('a claim reads names with quotes, backslashes and SQL in them as they are', async () => {
  const store = pg.open();
  const names = ["it's", 'back\\slash\\', "x'); DROP TABLE jobs; --", 'E\'\\\'', 'ünï ✓'];
  const inserted = await store.insert(names.map((name) => job({ name })), NOW);
  await store.setPaused("it's", true, NOW);
  const claimed = await claimOf(store, { names, limit: 10, owner: "own'er\\" });
  expect(claimed.map((c) => c.name).sort()).toEqual(names.filter((n) => n !== "it's").sort());
  expect(claimed.every((c) => c.leaseOwner === "own'er\\")).toBe(true);
  const paused = inserted[0]!;
  expect(await store.get(paused.id)).toMatchObject({ name: "it's", state: 'pending' });
  expect((await store.stats()).total).toBe(names.length);
});

/** The generic plan of the one-request move (TransitionStatements.one), prepared on `admin`, for a move of the first job a claim takes. */
async function oneMoveGenericPlan(schema: string, store: Store, admin: Client): Promise<string> {
  const [c] = await claimOf(store, { limit: 1 });
  const values = oneRequestValues(move({ id: c!.id, version: c!.version, from: 'processing', token: c!.leaseToken, to: 'completed' }));
  const written = values.map((v) => (v === null ? 'NULL' : typeof v === 'string' || Array.isArray(v) ? literal(v as string | string[]) : String(v)));
  await admin.query(`PREPARE one_move AS ${transitionStatements(schema, false).one}`);
  return plan(admin, `SET plan_cache_mode = force_generic_plan; EXPLAIN EXECUTE one_move(${written.join(', ')})`);
}

it('one transition, prepared once per connection, reads its job by primary key under its generic plan', async () => {
  const { schema, store, admin, analyzed } = await backlog(false);
  try {
    expect(analyzed).toBe(false);
    const lines = await oneMoveGenericPlan(schema, store, admin);
    expect(lines).toMatch(/Index Scan using jobs_pkey on jobs/);
    expect(lines).not.toMatch(/Seq Scan on jobs\b/);
    // Generic: the job's id stays a parameter, the plan is the connection's for every call.
    expect(lines).toMatch(/\$1\b/);
  } finally {
    await admin.end();
  }
});

it('one transition keeps reading its job by primary key with a generic plan made while the table held a few rows', async () => {
  const schema = pg.schema();
  const store = pg.open({ schema, history: false });
  await store.insert(Array.from({ length: 20 }, () => job()), NOW);
  const admin = await pgClient();
  try {
    const lines = await oneMoveGenericPlan(schema, store, admin);
    expect(lines).toMatch(/Index Scan using jobs_pkey on jobs/);
    expect(lines).not.toMatch(/Seq Scan on jobs\b/);
  } finally {
    await admin.end();
  }
});
