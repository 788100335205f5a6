/**
 * Random interleavings of enqueue, claim, complete, fail and retry promotion
 * by two engines, each on its own connection to one database (a SQLite file,
 * or a PostgreSQL schema in the conformance project), their calls paired up
 * and run concurrently.
 *
 * Property: at no point are two jobs with the same unique key inside their
 * `while` window, judged from the job's state and history alone (not from
 * the key column): 'pending' = pending and never claimed, 'active' = pending
 * or processing and never anywhere else, 'until-finished' = not finished.
 * And once every job has finished, every key is free again.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/core/engine.js';
import { createEngine, type FacadeEngine } from '../../src/engine/create-engine.js';
import { defineJob } from '../../src/engine/core/job-definition.js';
import { toContext } from '../../src/engine/core/machine-registry.js';
import type { UniqueWhile } from '../../src/engine/core/unique.js';
import { systemClock } from '../../src/lib/clock.js';
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

const NAME = 'job';
const JOB = defineJob({ name: NAME, handler: () => undefined, retry: { attempts: 3, backoff: { type: 'fixed', delay: 0 } } });
const KEYS = ['a', 'b'];
const MODES: UniqueWhile[] = ['pending', 'active', 'until-finished'];
const FINISHED = ['completed', 'dead', 'cancelled'];

type Op =
  | { type: 'enqueue'; key: number; mode: number }
  | { type: 'claim' }
  | { type: 'complete'; pick: number }
  | { type: 'fail'; pick: number }
  | { type: 'promote' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ type: fc.constant('enqueue' as const), key: fc.nat(KEYS.length - 1), mode: fc.nat(MODES.length - 1) }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('claim' as const) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('complete' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('fail' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('promote' as const) }) },
);

const newSchema = TEST_STORE === 'postgres' ? usePgSchema() : undefined;

/** Two stores on one fresh database, and a third connection that reads it. */
async function freshDatabase(): Promise<{ stores: [Store, Store]; raw: RawSql; cleanup(): void }> {
  if (newSchema) {
    const schema = newSchema();
    const open = () => createPostgresStore({ connection: pgUrl(), schema, poolSize: 2, history: true });
    const stores: [Store, Store] = [open(), open()];
    await stores[0].ping(); // creates the tables before the other store or the reader looks
    return { stores, raw: await openRawSql({ connection: pgUrl(), schema }), cleanup: () => undefined };
  }
  const tmp = tempDbPath();
  const open = () => createSqliteStore({ path: tmp.path, durability: 'normal', cacheMiB: 8, busyTimeoutMs: 5000, history: true });
  const stores: [Store, Store] = [open(), open()];
  return { stores, raw: await openRawSql({ path: tmp.path }), cleanup: tmp.cleanup };
}

interface Row { id: number; state: string; payload: string; claims: number; left_active: number }

/** Every job's state and what its history says, in one statement (one snapshot). */
const READ = `SELECT j.id, j.state, j.payload,
  (SELECT count(*) FROM job_history h WHERE h.job_id = j.id AND h.event = 'job.claim') AS claims,
  (SELECT count(*) FROM job_history h WHERE h.job_id = j.id AND h.to_state NOT IN ('pending', 'processing')) AS left_active
  FROM jobs j ORDER BY j.id`;

function inWindow(row: Row): boolean {
  const { w } = JSON.parse(row.payload) as { w: UniqueWhile };
  if (w === 'pending') return row.state === 'pending' && Number(row.claims) === 0;
  if (w === 'active') return (row.state === 'pending' || row.state === 'processing') && Number(row.left_active) === 0;
  return !FINISHED.includes(row.state);
}

/** The keys held by more than one job inside its window. */
async function doubleHolders(raw: RawSql): Promise<string[]> {
  const byKey = new Map<string, number[]>();
  for (const row of await raw.query<Row>(READ, [])) {
    if (!inWindow(row)) continue;
    const { k } = JSON.parse(row.payload) as { k: string };
    byKey.set(k, [...(byKey.get(k) ?? []), row.id]);
  }
  return [...byKey].filter(([, ids]) => ids.length > 1).map(([k, ids]) => `key ${k}: jobs ${ids.join(', ')} all inside their window`);
}

async function run(ops: readonly Op[]): Promise<{ violations: string[]; notFreed: string[] }> {
  const { stores, raw, cleanup } = await freshDatabase();
  const engines = stores.map((store) => createEngine({ store, clock: systemClock, logger: silentLogger, jobs: [JOB], retention: {}, maxPayloadBytes: 1024 })) as [FacadeEngine, FacadeEngine];
  /** Jobs leased by either engine and not settled yet. */
  const held: LeasedJob[] = [];
  const violations: string[] = [];
  const enqueue = (e: Engine, k: string, w: UniqueWhile) =>
    e.enqueue(e.newJob({ name: NAME, payload: { k, w }, options: { unique: { key: k, while: w } } }, systemClock.now()));
  const settle = async (e: Engine, pick: number, event: JobEvent) => {
    if (held.length === 0) return;
    const [job] = held.splice(pick % held.length, 1);
    await e.apply(job!, event);
  };
  const promote = async (e: Engine) => {
    const due = await e.store.dueJobs([NAME], e.registry.delayedStates, systemClock.now(), 100);
    for (const d of due) {
      const next = e.registry.forJob(d.name, d.retry).due(d.state, toContext(d.attempts, d.lastError, d.ctx))!;
      await e.apply(d, machineEvent({ type: next.eventType }));
    }
  };
  const perform = async (e: Engine, op: Op) => {
    if (op.type === 'enqueue') await enqueue(e, KEYS[op.key]!, MODES[op.mode]!);
    else if (op.type === 'claim') held.push(...((await e.store.claim({ names: [NAME], limit: 1, owner: 'w', leaseMs: 60_000, now: systemClock.now(), rule: e.registry.claimRule })).jobs));
    else if (op.type === 'complete') await settle(e, op.pick, { type: 'job.complete' });
    else if (op.type === 'fail') await settle(e, op.pick, { type: 'job.fail', error: { name: 'Error', message: 'failed' }, random: 0 });
    else await promote(e);
  };
  try {
    // Two at a time, one on each engine, concurrently.
    for (let i = 0; i < ops.length; i += 2) {
      await Promise.all([perform(engines[0], ops[i]!), ops[i + 1] ? perform(engines[1], ops[i + 1]!) : undefined]);
      violations.push(...(await doubleHolders(raw)));
      if (violations.length > 0) break;
    }
    // Finish everything, then every key must be free for every `while`.
    for (let round = 0; round < 20; round++) {
      await promote(engines[0]);
      for (;;) {
        const jobs = (await engines[1].store.claim({ names: [NAME], limit: 100, owner: 'w', leaseMs: 60_000, now: systemClock.now(), rule: engines[1].registry.claimRule })).jobs;
        if (jobs.length === 0) break;
        held.push(...jobs);
      }
      for (const job of held.splice(0)) await engines[0].apply(job, { type: 'job.complete' });
    }
    const notFreed: string[] = [];
    for (const k of KEYS) {
      for (const w of MODES) {
        const r = await enqueue(engines[w === 'active' ? 0 : 1], k, w);
        if (!r.created) notFreed.push(`key ${k} (${w}) still held by job ${r.id}`);
        await engines[0].apply({ ...(await engines[0].store.get(r.id))! }, { type: 'job.cancel' });
      }
    }
    return { violations, notFreed };
  } finally {
    for (const e of engines) await e.close();
    await raw.close();
    cleanup();
  }
}

describe('unique keys across two connections', () => {
  it('at most one job per key is inside its while window, and finished jobs free their keys', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 4, maxLength: 40 }), async (ops) => {
        const { violations, notFreed } = await run(ops);
        expect(violations).toEqual([]);
        expect(notFreed).toEqual([]);
      }),
      { numRuns: propertyRuns(60) },
    );
  }, 120_000);
});
