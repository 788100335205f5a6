/**
 * Two connections on one SQLite file, as two processes would hold them: their
 * claims, completions and lease sweeps interleave in a random order, and no job
 * is ever held by both. Also: `externalChange()` sees the other connection's
 * commits (PRAGMA data_version) and only those.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApplyEvent } from '../../src/engine/core/moves.js';
import type { Engine } from '../../src/engine/core/engine.js';
import { createEngine } from '../../src/engine/create-engine.js';
import { defineJob } from '../../src/engine/core/job-definition.js';
import { toContext } from '../../src/engine/core/machine-registry.js';
import { systemClock } from '../../src/lib/clock.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { LeasedJob, NewJob, Store } from '../../src/store/store.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';
import { propertyRuns } from '../helpers/property-runs.js';
import { machineEvent } from '../../src/engine/core/moves.js';

const NAME = 'job';
const LEASE = 1000;
// Two attempts, no backoff: a first expired lease makes the job due again at once, a second one kills it.
const JOB = defineJob({ name: NAME, handler: () => undefined, retry: { attempts: 2, backoff: { type: 'fixed', delay: 0 } } });
const newJob = (runAt: number): NewJob => ({ name: NAME, state: 'pending', payload: '{}', key: null, priority: 0, runAt, retry: null, timeout: null });

interface Conn { store: Store; apply: ApplyEvent; engine: Engine }
const clock = { ...systemClock, t: 1_000_000, now: (): number => clock.t };

function openConnections(path: string): [Conn, Conn] {
  // Each "process" builds the engine the product builds, on its own connection.
  const open = (): Conn => {
    const store = createSqliteStore({ path, durability: 'normal', cacheMiB: 8, busyTimeoutMs: 5000, history: true });
    const engine = createEngine({ store, clock, logger: silentLogger, jobs: [JOB], retention: {}, maxPayloadBytes: 1024 });
    return { store, apply: engine.apply, engine };
  };
  return [open(), open()];
}

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});
function setup(): [Conn, Conn] {
  const tmp = tempDbPath();
  const conns = openConnections(tmp.path);
  cleanups.push(async () => {
    for (const c of conns) await c.engine.close();
    tmp.cleanup();
  });
  return conns;
}

type Step =
  | { kind: 'claim'; conn: 0 | 1; limit: number }
  | { kind: 'complete'; conn: 0 | 1; pick: number }
  | { kind: 'sweep'; conn: 0 | 1 }
  | { kind: 'stale'; conn: 0 | 1; pick: number };
const conn = fc.constantFrom<0 | 1>(0, 1);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('claim' as const), conn, limit: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('complete' as const), conn, pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sweep' as const), conn }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('stale' as const), conn, pick: fc.nat() }) },
);

describe('two connections on one file', () => {
  it('never hand one job to both, whatever the order of their calls', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 30 }), fc.array(stepArb, { minLength: 1, maxLength: 60 }), async (n, steps) => {
        const conns = setup();
        try {
          // Both "processes" enqueue.
          await conns[0].store.insert(Array.from({ length: Math.ceil(n / 2) }, () => newJob(clock.t)), clock.t);
          await conns[1].store.insert(Array.from({ length: Math.floor(n / 2) }, () => newJob(clock.t)), clock.t);
          const live = new Map<number, { conn: number; lease: LeasedJob }>();
          const lost: LeasedJob[] = [];
          const want = new Map<number, string>(); // what each job's state must be, unless live
          const finished = new Map<number, number>();
          const finish = (id: number, state: string) => {
            want.set(id, state);
            if (state === 'completed' || state === 'dead') finished.set(id, (finished.get(id) ?? 0) + 1);
          };

          for (const step of steps) {
            const { store, apply, engine } = conns[step.conn];
            const { registry } = engine;
            if (step.kind === 'claim') {
              const got = (await store.claim({ names: [NAME], limit: step.limit, owner: `c${step.conn}`, leaseMs: LEASE, now: clock.now(), rule: conns[0].engine.registry.claimRule })).jobs;
              for (const c of got) {
                const holder = live.get(c.id);
                expect(holder, `job ${c.id} claimed by c${step.conn} while c${holder?.conn} holds it`).toBeUndefined();
                live.set(c.id, { conn: step.conn, lease: c });
              }
            } else if (step.kind === 'complete' && live.size > 0) {
              // A lease token is valid whichever connection carries it.
              const held = [...live.values()][step.pick % live.size]!;
              const res = await apply(held.lease, { type: 'job.complete' });
              expect(res).toMatchObject({ accepted: true, committed: true, to: 'completed' });
              live.delete(held.lease.id);
              finish(held.lease.id, 'completed');
            } else if (step.kind === 'sweep') {
              // Time passes every lease; this connection's sweeper expires them and promotes due retries.
              clock.t += LEASE + 1;
              const expired = await store.expiredLeases([NAME], clock.now(), 100);
              expect(expired.map((d) => d.id).sort((a, b) => a - b)).toEqual([...live.keys()].sort((a, b) => a - b));
              for (const d of expired) {
                const res = await apply(d, { type: 'job.expire', error: { name: 'LeaseExpiredError', message: 'expired' }, random: 0 });
                const to = d.attempts < 2 ? 'failed' : 'dead';
                expect(res).toMatchObject({ accepted: true, committed: true, to });
                lost.push(live.get(d.id)!.lease);
                live.delete(d.id);
                finish(d.id, to);
              }
              for (const d of await store.dueJobs([NAME], registry.delayedStates, clock.now(), 100)) {
                const next = registry.forJob(d.name, d.retry).due(d.state, toContext(d.attempts, d.lastError, d.ctx))!;
                expect(await apply(d, machineEvent({ type: next.eventType }))).toMatchObject({ committed: true, to: 'pending' });
                finish(d.id, 'pending');
              }
            } else if (step.kind === 'stale' && lost.length > 0) {
              // The expired holder (perhaps while the job is held again under a new lease) is refused.
              const res = await apply(lost[step.pick % lost.length]!, { type: 'job.complete' });
              expect(res).toMatchObject({ accepted: true, committed: false });
            }
          }

          // Both connections see the same jobs, and exactly the live leases are processing.
          for (const { store } of conns) {
            const jobs = await store.list({ limit: 1000 });
            expect(jobs.length).toBe(n);
            for (const job of jobs) {
              const held = live.get(job.id);
              expect(job.leaseToken).toBe(held ? held.lease.leaseToken : null);
              expect(job.state).toBe(held ? 'processing' : (want.get(job.id) ?? 'pending'));
            }
          }
          for (const count of finished.values()) expect(count).toBe(1);
        } finally {
          await cleanups.pop()!();
        }
      }),
      // Opening a file costs ~20 ms of fsyncs per connection: fewer, longer runs.
      { numRuns: propertyRuns(50) },
    );
  });

  it('tells a connection when the other one committed, and only then', async () => {
    const [a, b] = setup();
    a.store.externalChange(); // forget whatever b's opening did
    b.store.externalChange();
    expect(a.store.externalChange()).toBe(false);

    await b.store.insert([newJob(clock.t)], clock.t);
    expect(a.store.externalChange()).toBe(true);
    expect(a.store.externalChange()).toBe(false); // reading it clears it

    await a.store.insert([newJob(clock.t)], clock.t);
    expect(a.store.externalChange()).toBe(false); // its own commit is not external
    expect(b.store.externalChange()).toBe(true);
    expect(b.store.externalChange()).toBe(false);

    const [claimed] = (await b.store.claim({ names: [NAME], limit: 1, owner: 'b', leaseMs: LEASE, now: clock.now(), rule: b.engine.registry.claimRule })).jobs;
    expect(claimed).toBeDefined();
    expect(a.store.externalChange()).toBe(true);
    expect(a.store.externalChange()).toBe(false);

    expect(await b.apply(claimed!, { type: 'job.complete' })).toMatchObject({ committed: true });
    expect(a.store.externalChange()).toBe(true);
    expect((await a.store.get(claimed!.id))?.state).toBe('completed');
    expect(a.store.externalChange()).toBe(false);
  });
});
