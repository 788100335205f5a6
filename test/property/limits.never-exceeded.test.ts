/**
 * Random interleavings of enqueue, claim, complete, fail and clock steps by
 * three engines, each on its own connection to one database (a SQLite file,
 * or a PostgreSQL schema in the conformance project), their calls run three
 * at a time, concurrently, on one injected clock.
 *
 * Properties, checked after every step from the database itself:
 * - no group has more jobs leased than its limit (`groupConcurrency` of the
 *   name, or a group's own setting);
 * - no name has more jobs leased than its `globalConcurrency`;
 * - no window of `per` holds more than `max` claims of a rate-limited name
 *   (from the claims' history rows), nor more than `max` starts: every
 *   rate-limited job a claim takes comes back with a `startBy`, and starts
 *   at a later step (its claim's answer, or a worker, came late), or is
 *   handed back unstarted once it has passed, as the consumer does; a claim
 *   for a prefetch buffer (`ahead`) takes them past its idle workers too;
 * - no job is leased by two claims at once.
 * And once the clock has moved on and every leased job is finished, every
 * job has finished: a limit holds jobs back, it never loses one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/core/engine.js';
import { createEngine } from '../../src/engine/create-engine.js';
import { defineJob } from '../../src/engine/core/job-definition.js';
import { limitsByName } from '../../src/engine/core/limits.js';
import { toContext } from '../../src/engine/core/machine-registry.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';
import { createPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { LeasedJob, Store } from '../../src/store/store.js';
import { pgUrl, usePgSchema } from '../helpers/postgres.js';
import { TEST_STORE } from '../helpers/queue-fixture.js';
import { openRawSql, type RawSql } from '../helpers/raw-sql.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';
import { propertyRuns } from '../helpers/property-runs.js';
import { machineEvent } from '../../src/engine/core/moves.js';
import type { JobEvent } from '../../machines/job.machine.js';

const retry = { attempts: 2, backoff: { type: 'fixed' as const, delay: 0 } };
const JOBS = [
  defineJob({ name: 'grouped', groupConcurrency: 2, retry, handler: () => undefined }),
  defineJob({ name: 'capped', globalConcurrency: 2, retry, handler: () => undefined }),
  defineJob({ name: 'rated', rateLimit: { max: 3, per: 1000 }, retry, handler: () => undefined }),
  defineJob({ name: 'free', retry, handler: () => undefined }),
];
const NAMES = JOBS.map((j) => j.name);
const LIMITS = limitsByName(JOBS);
const GROUPS = ['a', 'b', 'c'];
/** Group 'c' has a setting of its own, over `grouped`'s 2 (and it binds the `free` jobs put in it too). */
const OWN = { c: 1 };
const START = Date.parse('2026-06-01T00:00:00Z');
/** Runs per property: a PostgreSQL run makes a schema and three pools, several times a SQLite file's cost. */
const RUNS = propertyRuns(1) * (TEST_STORE === 'postgres' ? 0.4 : 1);

type Op =
  | { type: 'enqueue'; name: number; group: number }
  | { type: 'claim'; limit: number }
  | { type: 'claimAhead'; limit: number; startNow: number }
  | { type: 'start'; pick: number }
  | { type: 'complete'; pick: number }
  | { type: 'fail'; pick: number }
  | { type: 'tick'; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  // group: 0..2 a group, 3 none
  { weight: 4, arbitrary: fc.record({ type: fc.constant('enqueue' as const), name: fc.nat(NAMES.length - 1), group: fc.nat(GROUPS.length) }) },
  { weight: 4, arbitrary: fc.record({ type: fc.constant('claim' as const), limit: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('start' as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('complete' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('fail' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 700 }) }) },
);

/** Rate-limited jobs only, with short clock steps: windows that straddle several claims. */
const rateOpArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ type: fc.constant('enqueue' as const), name: fc.constant(2), group: fc.constant(GROUPS.length) }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('claim' as const), limit: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('claimAhead' as const), limit: fc.integer({ min: 1, max: 4 }), startNow: fc.integer({ min: 0, max: 2 }) }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('start' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('complete' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 400 }) }) },
  // Steps within a hold, and ones that land a window after it: where a token spent too early would show.
  { weight: 2, arbitrary: fc.record({ type: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 60 }) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('tick' as const), ms: fc.constantFrom(961, 980, 1000) }) },
);

/** A rated job's start deadline after its claim (the consumer's `startWithinMs` for a window of 1 s). */
const HOLD_MS = 40;

const idle: Op = { type: 'tick', ms: 0 };
const rated: Op = { type: 'enqueue', name: 2, group: GROUPS.length };
/**
 * Three rated jobs claimed ahead at 0, one started at 30, three claimed at
 * 1010: four starts within 980 ms unless the held tokens came back a window
 * after their deadline, not after the claim. (Ops run three at a time.)
 */
const HELD_THEN_WINDOW = [
  ...[rated, rated, rated, rated, rated, rated],
  ...[{ type: 'claimAhead', limit: 3, startNow: 0 }, idle, idle],
  ...[{ type: 'tick', ms: 30 }, idle, idle],
  ...[{ type: 'start', pick: 0 }, idle, idle],
  ...[{ type: 'tick', ms: 980 }, idle, idle],
  ...[{ type: 'claim', limit: 3 }, idle, idle],
] as Op[];
/**
 * Three rated jobs claimed for idle workers at 0 whose answer came 30 ms
 * late (they start at 30), three claimed at 1010: six starts within 980 ms
 * unless tokens spent for idle workers are stamped at their deadline too.
 */
const LATE_ANSWER = [
  ...[rated, rated, rated, rated, rated, rated],
  ...[{ type: 'claim', limit: 3 }, idle, idle],
  ...[{ type: 'tick', ms: 30 }, idle, idle],
  ...[{ type: 'start', pick: 0 }, { type: 'start', pick: 0 }, { type: 'start', pick: 0 }],
  ...[{ type: 'tick', ms: 980 }, idle, idle],
  ...[{ type: 'claim', limit: 3 }, idle, idle],
  ...[{ type: 'start', pick: 0 }, idle, idle],
] as Op[];

const newSchema = TEST_STORE === 'postgres' ? usePgSchema() : undefined;

async function freshDatabase(): Promise<{ stores: Store[]; raw: RawSql; cleanup(): void }> {
  if (newSchema) {
    const schema = newSchema();
    const open = () => createPostgresStore({ connection: pgUrl(), schema, poolSize: 2, history: true });
    const first = open();
    await first.ping(); // creates the tables before the others look
    return { stores: [first, open(), open()], raw: await openRawSql({ connection: pgUrl(), schema }), cleanup: () => undefined };
  }
  const tmp = tempDbPath();
  const open = () => createSqliteStore({ path: tmp.path, durability: 'normal', cacheMiB: 8, busyTimeoutMs: 5000, history: true });
  return { stores: [open(), open(), open()], raw: await openRawSql({ path: tmp.path }), cleanup: tmp.cleanup };
}

interface Leased { id: number; name: string; group_key: string | null }

/** Four starts of `rated` within one window of its rate (1000 ms). */
function crowdedStarts(starts: readonly number[]): string[] {
  const sorted = [...starts].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i + 3 < sorted.length; i++) {
    if (sorted[i + 3]! - sorted[i]! < 1000) out.push(`rated: 4 starts within ${sorted[i + 3]! - sorted[i]!} ms (at ${sorted.slice(i, i + 4).join(', ')})`);
  }
  return out;
}

/** What the database holds now that breaks a limit. */
async function violations(raw: RawSql): Promise<string[]> {
  const out: string[] = [];
  const leased = await raw.query<Leased>(`SELECT id, name, group_key FROM jobs WHERE state = 'processing'`, []);
  for (const group of GROUPS) {
    const inGroup = leased.filter((j) => j.group_key === group);
    // A group's own setting binds every job in it; `grouped`'s 2 binds its own
    // jobs (each claimed while fewer than 2 of the group ran, of any name).
    const own = OWN[group as keyof typeof OWN];
    if (own !== undefined && inGroup.length > own) out.push(`group ${group}: ${inGroup.length} leased, its own limit ${own}`);
    const bound = inGroup.filter((j) => j.name === 'grouped').length;
    if (own === undefined && bound > 2) out.push(`group ${group}: ${bound} grouped jobs leased, limit 2`);
  }
  const capped = leased.filter((j) => j.name === 'capped').length;
  if (capped > 2) out.push(`capped: ${capped} leased, limit 2`);
  const claims = (await raw.query<{ at: number | string }>(`SELECT h.at FROM job_history h JOIN jobs j ON j.id = h.job_id WHERE j.name = 'rated' AND h.event = 'job.claim' ORDER BY h.at`, [])).map((r) => Number(r.at));
  for (let i = 0; i + 3 < claims.length; i++) {
    if (claims[i + 3]! - claims[i]! < 1000) out.push(`rated: 4 claims within ${claims[i + 3]! - claims[i]!} ms (at ${claims.slice(i, i + 4).join(', ')})`);
  }
  return out;
}

async function run(ops: readonly Op[]): Promise<{ found: string[]; unfinished: number }> {
  const { stores, raw, cleanup } = await freshDatabase();
  const clock = createVirtualClock(START);
  const engines = stores.map((store) => createEngine({ store, clock, logger: silentLogger, jobs: JOBS, retention: {}, maxPayloadBytes: 1024 })) as Engine[];
  await stores[0]!.setGroupConcurrency('c', OWN.c, START);
  const held: LeasedJob[] = [];
  /** Claimed for a buffer, not started yet: each with its start deadline. */
  const ahead: Array<{ job: LeasedJob; deadline: number }> = [];
  /** When each `rated` job started (a plain claim starts its jobs at once). */
  const starts: number[] = [];
  const found: string[] = [];
  /**
   * A claim as the consumer makes it, for `startNow` idle workers and, `ahead`, for a buffer: jobs
   * without a limit start at once, rated ones (each with a `startBy`) at a later `start`.
   */
  const claim = async (e: Engine, limit: number, isAhead = false, startNow = limit) => {
    const now = clock.now();
    const rate = { now, stampAt: now + HOLD_MS, ahead: isAhead };
    const request = { names: NAMES, limit, owner: 'w', leaseMs: 600_000, now, rule: e.registry.claimRule, limits: LIMITS, startNow, startWithinMs: HOLD_MS, rate };
    const jobs = (await e.store.claim(request)).jobs;
    for (const job of jobs) if (held.some((h) => h.id === job.id) || ahead.some((a) => a.job.id === job.id)) found.push(`job ${job.id} leased twice`);
    for (const job of jobs) {
      if (job.startBy !== undefined) {
        if (job.startBy !== now + HOLD_MS) found.push(`job ${job.id} has startBy ${job.startBy}, not ${now + HOLD_MS}`);
        ahead.push({ job, deadline: job.startBy - 1 });
      } else {
        if (job.name === 'rated') found.push(`job ${job.id} (rated) has no startBy`);
        held.push(job);
      }
    }
    return jobs.length;
  };
  /** A buffered job starts if its deadline has not passed (it may start at the deadline's last ms), else goes back unstarted. */
  const start = async (e: Engine, pick: number) => {
    if (ahead.length === 0) return;
    const [{ job, deadline }] = ahead.splice(pick % ahead.length, 1) as [{ job: LeasedJob; deadline: number }];
    if (clock.now() >= deadline) return void (await e.apply(job, { type: 'job.release' }, { runAt: clock.now() }));
    if (job.name === 'rated') starts.push(clock.now());
    held.push(job);
  };
  const settle = async (e: Engine, pick: number, event: JobEvent) => {
    if (held.length === 0) return;
    const [job] = held.splice(pick % held.length, 1);
    await e.apply(job!, event);
  };
  const perform = async (e: Engine, op: Op) => {
    if (op.type === 'enqueue') {
      const group = GROUPS[op.group];
      await e.enqueue(e.newJob({ name: NAMES[op.name], payload: null, options: group ? { group } : {} }, clock.now()));
    } else if (op.type === 'claim') await claim(e, op.limit);
    else if (op.type === 'claimAhead') await claim(e, op.limit, true, op.startNow);
    else if (op.type === 'start') await start(e, op.pick);
    else if (op.type === 'complete') await settle(e, op.pick, { type: 'job.complete' });
    else if (op.type === 'fail') await settle(e, op.pick, { type: 'job.fail', error: { name: 'Error', message: 'failed' }, random: 0 });
    else await clock.advance(op.ms);
  };
  const unfinished = async () => Number((await raw.query<{ n: number | string }>(`SELECT count(*) AS n FROM jobs WHERE state NOT IN ('completed', 'dead')`, []))[0]!.n);
  try {
    for (let i = 0; i < ops.length && found.length === 0; i += 3) {
      await Promise.all(ops.slice(i, i + 3).map((op, k) => perform(engines[k]!, op)));
      await Promise.all(engines.map((e) => e.flush()));
      found.push(...(await violations(raw)), ...crowdedStarts(starts));
    }
    for (const { job } of ahead.splice(0)) await engines[0]!.apply(job, { type: 'job.release' }, { runAt: clock.now() });
    // Finish: retries come due, tokens come back, every job gets its turn.
    for (let round = 0; round < 60 && found.length === 0; round++) {
      for (const e of engines) {
        for (const d of await e.store.dueJobs(NAMES, e.registry.delayedStates, clock.now(), 100)) {
          const next = e.registry.forJob(d.name, d.retry).due(d.state, toContext(d.attempts, d.lastError, d.ctx))!;
          await e.apply(d, machineEvent({ type: next.eventType }));
        }
      }
      while ((await claim(engines[round % 3]!, 4)) > 0) {
        while (ahead.length > 0) await start(engines[0]!, 0);
        found.push(...(await violations(raw)), ...crowdedStarts(starts));
      }
      for (const job of held.splice(0)) await engines[0]!.apply(job, { type: 'job.complete' });
      await engines[0]!.flush();
      // Every job finished: a later round would find nothing due and claim nothing.
      if ((await unfinished()) === 0) break;
      await clock.advance(500);
    }
    return { found, unfinished: await unfinished() };
  } finally {
    for (const e of engines) await e.close();
    await raw.close();
    cleanup();
  }
}

describe('limits across three connections', () => {
  it('no group, name or rate window is ever above its limit, and every job finishes in the end', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 6, maxLength: 45 }), async (ops) => {
        const { found, unfinished } = await run(ops);
        expect(found).toEqual([]);
        expect(unfinished).toBe(0);
      }),
      { numRuns: Math.round(40 * RUNS) },
    );
  }, 180_000);

  it('no window of a rate limit holds more claims or starts than its max, with jobs claimed ahead for a buffer', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rateOpArb, { minLength: 6, maxLength: 45 }), async (ops) => {
        const { found, unfinished } = await run(ops);
        expect(found).toEqual([]);
        expect(unfinished).toBe(0);
      }),
      { numRuns: Math.round(30 * RUNS), examples: [[HELD_THEN_WINDOW], [LATE_ANSWER]] },
    );
  }, 180_000);
});
