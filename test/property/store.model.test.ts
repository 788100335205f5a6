/**
 * Model-based test of the store + machine + apply-event path: random command
 * sequences run against each store (a real SQLite file; in the conformance
 * project, a real PostgreSQL schema) and an in-memory model; after every
 * command the store must equal the model (state, attempts, run_at, lease token
 * per id; counts; a valid history chain per job).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApplyEvent } from '../../src/engine/core/moves.js';
import { createEngine } from '../../src/engine/create-engine.js';
import { isTransition, type JobTransitionEvent } from '../../src/engine/core/events.js';
import { defineJob } from '../../src/engine/core/job-definition.js';
import { toContext, type MachineRegistry } from '../../src/engine/core/machine-registry.js';
import { systemClock } from '../../src/lib/clock.js';
import { createPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { LeasedJob, Store } from '../../src/store/store.js';
import { silentLogger } from '../helpers/silent-logger.js';
import type { ErrorInfo } from '../../machines/policy.js';
import { pgUrl, usePgSchema } from '../helpers/postgres.js';
import { tempDbPath } from '../helpers/temp-db.js';
import { TEST_STORE } from '../helpers/queue-fixture.js';
import { propertyRuns } from '../helpers/property-runs.js';
import { machineEvent } from '../../src/engine/core/moves.js';
import type { JobEvent } from '../../machines/job.machine.js';

const LEASE = 1000;
const RETRY_AFTER = 50;
/** Small attempts policies the model re-implements on its own (fixed backoff). */
const POLICY = { a: { attempts: 3, delay: 100 }, b: { attempts: 1, delay: 100 } } as const;
type Name = keyof typeof POLICY;
const NAMES: readonly Name[] = ['a', 'b'];
type FailKind = 'error' | 'fatal' | 'later';
const ERRORS: Record<FailKind, ErrorInfo> = {
  error: { name: 'Error', message: 'boom' },
  fatal: { name: 'UnrecoverableError', message: 'no', unrecoverable: true },
  later: { name: 'RetryLaterError', message: 'later', retryAfter: RETRY_AFTER },
};
const EXPIRED: ErrorInfo = { name: 'LeaseExpiredError', message: 'lease expired' };

interface MJob { id: number; name: Name; priority: number; state: string; attempts: number; runAt: number; token: string | null; lockedUntil: number | null; history: number }
interface Model { t: number; jobs: Map<number, MJob>; keys: Map<string, number>; lost: Array<{ id: number; token: string }>; committed: number }
interface Real { store: Store; apply: ApplyEvent; clock: { t: number; now(): number }; registry: MachineRegistry; notices: JobTransitionEvent[]; leases: Map<string, LeasedJob> }
type Cmd = fc.AsyncCommand<Model, Real>;

const leaseKey = (id: number, token: string) => `${id}/${token}`;
const inState = (m: Model, ...states: string[]) => [...m.jobs.values()].filter((j) => states.includes(j.state));
const pick = <T>(list: readonly T[], n: number): T => list[n % list.length]!;

/** What the model says an attempt's failure (or expiry) leads to. */
function afterFailure(m: Model, j: MJob, kind: FailKind): Pick<MJob, 'state' | 'attempts' | 'runAt'> {
  const p = POLICY[j.name];
  if (kind === 'later') return { state: 'failed', attempts: Math.max(0, j.attempts - 1), runAt: m.t + RETRY_AFTER };
  if (kind === 'error' && j.attempts < p.attempts) return { state: 'failed', attempts: j.attempts, runAt: m.t + p.delay };
  return { state: 'dead', attempts: j.attempts, runAt: j.runAt };
}

/**
 * Applies a committed transition to the model; a lease ended by anyone but its holder is lost. A caller's
 * event (`keepsHold`: a cancel) leaves the lease on the job as its run's hold (run-holds.ts).
 */
function move(m: Model, j: MJob, next: Pick<MJob, 'state' | 'attempts' | 'runAt'>, byHolder: boolean, keepsHold = false): void {
  if (j.token !== null && !byHolder) m.lost.push({ id: j.id, token: j.token });
  Object.assign(j, next, keepsHold ? {} : { token: null, lockedUntil: null });
  j.history++;
  m.committed++;
}

async function verify(m: Model, r: Real): Promise<void> {
  const rows = await r.store.list({ limit: 10_000 });
  expect(rows.map((j) => j.id)).toEqual([...m.jobs.keys()]);
  for (const row of rows) {
    const j = m.jobs.get(row.id)!;
    const want = { name: j.name, state: j.state, attempts: j.attempts, runAt: j.runAt, leaseToken: j.token, lockedUntil: j.lockedUntil };
    expect({ name: row.name, state: row.state, attempts: row.attempts, runAt: row.runAt, leaseToken: row.leaseToken, lockedUntil: row.lockedUntil }).toEqual(want);
    expect((await r.store.get(row.id))?.state).toBe(j.state);
    const history = await r.store.history(row.id);
    expect(history.length).toBe(j.history);
    expect(history[0]).toMatchObject({ from: null, to: 'pending', event: 'job.enqueue' });
    for (let i = 1; i < history.length; i++) expect(history[i]!.from).toBe(history[i - 1]!.to);
    expect(history.at(-1)!.to).toBe(j.state);
  }
  const stats = await r.store.stats();
  const byState: Record<string, number> = {};
  for (const j of m.jobs.values()) byState[j.state] = (byState[j.state] ?? 0) + 1;
  expect(stats.total).toBe(m.jobs.size);
  expect(stats.byState).toEqual(byState);
  expect(r.notices.length).toBe(m.committed);
}

const cmd = (label: string, check: (m: Readonly<Model>) => boolean, run: (m: Model, r: Real) => Promise<void>): Cmd => ({
  check,
  run: async (m, r) => {
    await run(m, r);
    await verify(m, r);
  },
  toString: () => label,
});

const keyArb = fc.option(fc.constantFrom('k0', 'k1', 'k2'), { freq: 2 });
const itemArb = fc.record({ name: fc.constantFrom(...NAMES), key: keyArb, priority: fc.constantFrom(0, 0, 1), delay: fc.constantFrom(0, 0, 300) });
const enqueue = fc.array(itemArb, { minLength: 1, maxLength: 2 }).map((items) =>
  cmd(`enqueue(${JSON.stringify(items)})`, () => true, async (m, r) => {
    const got = await r.store.insert(items.map((i) => ({ name: i.name, state: 'pending', payload: '{}', key: i.key, priority: i.priority, runAt: m.t + i.delay, retry: null, timeout: null })), m.t);
    expect(got.length).toBe(items.length);
    items.forEach((item, i) => {
      const res = got[i]!;
      const first = item.key === null ? undefined : m.keys.get(item.key);
      if (first !== undefined) {
        // The first job's id, and its state as the model holds it now.
        expect(res).toEqual({ id: first, created: false, state: m.jobs.get(first)!.state });
        return;
      }
      expect(res.created).toBe(true);
      expect(res.state).toBe('pending');
      expect(Math.max(0, ...m.jobs.keys())).toBeLessThan(res.id);
      m.jobs.set(res.id, { id: res.id, name: item.name, priority: item.priority, state: 'pending', attempts: 0, runAt: m.t + item.delay, token: null, lockedUntil: null, history: 1 });
      if (item.key !== null) m.keys.set(item.key, res.id);
    });
  }),
);

const claim = fc.tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom('w0', 'w1', 'w2'), fc.constantFrom<Name[]>(['a'], ['b'], ['a', 'b'])).map(([limit, owner, names]) =>
  cmd(`claim(${limit}, ${owner}, ${names.join('+')})`, () => true, async (m, r) => {
    const expected = inState(m, 'pending')
      .filter((j) => names.includes(j.name) && j.runAt <= m.t)
      .sort((x, y) => y.priority - x.priority || x.runAt - y.runAt || x.id - y.id)
      .slice(0, limit)
      .map((j) => j.id)
      .sort((x, y) => x - y);
    const got = (await r.store.claim({ names, limit, owner, leaseMs: LEASE, now: r.clock.now(), rule: r.registry.claimRule })).jobs;
    // Which jobs (priority, run_at, id order) is the contract; RETURNING's row order is not.
    expect(got.map((c) => c.id).sort((x, y) => x - y)).toEqual(expected);
    for (const c of got) {
      const j = m.jobs.get(c.id)!;
      expect(j.state).toBe('pending'); // never handed to a second claimer
      expect(r.leases.has(leaseKey(c.id, c.leaseToken))).toBe(false); // a fresh token
      expect({ attempts: c.attempts, lockedUntil: c.lockedUntil }).toEqual({ attempts: j.attempts + 1, lockedUntil: m.t + LEASE });
      Object.assign(j, { state: 'processing', attempts: j.attempts + 1, token: c.leaseToken, lockedUntil: m.t + LEASE });
      j.history++;
      r.leases.set(leaseKey(c.id, c.leaseToken), c);
    }
  }),
);

const hasProcessing = (m: Readonly<Model>) => inState(m as Model, 'processing').length > 0;
const heldLease = (m: Model, r: Real, n: number) => {
  const j = pick(inState(m, 'processing'), n);
  return { j, lease: r.leases.get(leaseKey(j.id, j.token!))! };
};

const complete = fc.nat().map((n) =>
  cmd(`complete(#${n})`, hasProcessing, async (m, r) => {
    const { j, lease } = heldLease(m, r, n);
    const res = await r.apply(lease, { type: 'job.complete' }, { workerId: 'w', result: '"ok"' });
    expect(res).toEqual({ accepted: true, committed: true, to: 'completed', attempts: j.attempts, runAt: undefined, from: 'processing' });
    move(m, j, { state: 'completed', attempts: j.attempts, runAt: j.runAt }, true);
  }),
);

const fail = fc.tuple(fc.nat(), fc.constantFrom<FailKind>('error', 'error', 'fatal', 'later')).map(([n, kind]) =>
  cmd(`fail(#${n}, ${kind})`, hasProcessing, async (m, r) => {
    const { j, lease } = heldLease(m, r, n);
    const next = afterFailure(m, j, kind);
    const res = await r.apply(lease, { type: 'job.fail', error: ERRORS[kind], random: 0 }, { workerId: 'w' });
    expect(res).toMatchObject({ accepted: true, committed: true, to: next.state, attempts: next.attempts });
    move(m, j, next, true);
  }),
);

const expire = fc.integer({ min: 0, max: 2 * LEASE }).map((advance) =>
  cmd(`expire(+${advance}ms)`, () => true, async (m, r) => {
    r.clock.t = m.t += advance;
    const expected = inState(m, 'processing').filter((j) => j.lockedUntil! < m.t);
    const found = await r.store.expiredLeases(NAMES, m.t, 100);
    expect(found.map((d) => d.id).sort((x, y) => x - y)).toEqual(expected.map((j) => j.id));
    // Applied together so that the batcher settles them in one transaction.
    const results = await Promise.all(found.map((d) => r.apply(d, { type: 'job.expire', error: EXPIRED, random: 0 })));
    found.forEach((d, i) => {
      const j = m.jobs.get(d.id)!;
      const next = afterFailure(m, j, 'error');
      expect(results[i]).toMatchObject({ accepted: true, committed: true, to: next.state });
      move(m, j, next, false);
    });
  }),
);

const promote = fc.integer({ min: 0, max: 150 }).map((advance) =>
  cmd(`promote(+${advance}ms)`, () => true, async (m, r) => {
    r.clock.t = m.t += advance;
    const expected = inState(m, 'failed').filter((j) => j.runAt <= m.t);
    const due = await r.store.dueJobs(NAMES, r.registry.delayedStates, m.t, 100);
    expect(due.map((d) => d.id).sort((x, y) => x - y)).toEqual(expected.map((j) => j.id));
    for (const d of due) {
      const next = r.registry.forJob(d.name, d.retry).due(d.state, toContext(d.attempts, d.lastError, d.ctx));
      expect(next).toBeDefined();
      const res = await r.apply(d, machineEvent({ type: next!.eventType }));
      const j = m.jobs.get(d.id)!;
      expect(res).toMatchObject({ accepted: true, committed: true, to: 'pending', runAt: m.t });
      move(m, j, { state: 'pending', attempts: j.attempts, runAt: m.t }, false);
    }
  }),
);

const cancel = fc.nat().map((n) =>
  cmd(`cancel(#${n})`, (m) => m.jobs.size > 0, async (m, r) => {
    const j = pick([...m.jobs.values()], n);
    const rec = (await r.store.get(j.id))!;
    const res = await r.apply(rec, { type: 'job.cancel' });
    if (!['pending', 'processing', 'failed'].includes(j.state)) return expect(res).toEqual({ accepted: false });
    expect(res).toMatchObject({ accepted: true, committed: true, to: 'cancelled' });
    move(m, j, { state: 'cancelled', attempts: j.attempts, runAt: j.runAt }, false, true);
  }),
);

const retryDead = fc.nat().map((n) =>
  cmd(`retry(#${n})`, (m) => inState(m as Model, 'dead').length > 0, async (m, r) => {
    const j = pick(inState(m, 'dead'), n);
    const rec = (await r.store.get(j.id))!;
    const res = await r.apply(rec, { type: 'job.retry' });
    expect(res).toMatchObject({ accepted: true, committed: true, to: 'pending', attempts: 0 });
    move(m, j, { state: 'pending', attempts: 0, runAt: m.t }, false);
  }),
);

/**
 * A worker whose lease was lost (expired, cancelled) tries to settle: the CAS
 * must refuse. A live holder, if any, settles in the same batch and must not.
 */
const stale = fc.tuple(fc.nat(), fc.boolean(), fc.nat()).map(([n, completes, live]) =>
  cmd(`stale${completes ? 'Complete' : 'Fail'}(#${n}, live #${live})`, (m) => m.lost.length > 0, async (m, r) => {
    const { id, token } = pick(m.lost, n);
    const lease = r.leases.get(leaseKey(id, token))!;
    const event: JobEvent = completes ? { type: 'job.complete' } : { type: 'job.fail', error: ERRORS.error, random: 0 };
    const holder = inState(m, 'processing').length > 0 ? heldLease(m, r, live) : undefined;
    const [res, liveRes] = await Promise.all([
      r.apply(lease, event, { workerId: 'stale' }),
      ...(holder ? [r.apply(holder.lease, { type: 'job.complete' })] : []),
    ]);
    expect(res).toMatchObject({ accepted: true, committed: false });
    if (!holder) return;
    expect(liveRes).toMatchObject({ accepted: true, committed: true, to: 'completed' });
    move(m, holder.j, { state: 'completed', attempts: holder.j.attempts, runAt: holder.j.runAt }, true);
  }),
);

const JOBS = NAMES.map((name) => defineJob({ name, handler: () => undefined, retry: { attempts: POLICY[name].attempts, backoff: { type: 'fixed', delay: POLICY[name].delay } } }));

const pgSchema = TEST_STORE === 'postgres' ? usePgSchema() : undefined;
/**
 * The store under test, a fresh, empty one per run, and what removes it
 * afterwards: SQLite here, PostgreSQL in the conformance project
 * (vitest.config.ts), where its schema is dropped after the test.
 */
const [STORE, open]: [string, () => { store: Store; cleanup(): void }] = pgSchema
  ? ['PostgreSQL', () => ({ store: createPostgresStore({ connection: pgUrl(), schema: pgSchema(), history: true }), cleanup: () => undefined })]
  : [
      'SQLite',
      () => {
        const db = tempDbPath();
        return { store: createSqliteStore({ path: db.path, durability: 'normal', cacheMiB: 8, busyTimeoutMs: 5000, history: true }), cleanup: db.cleanup };
      },
    ];

describe(`the ${STORE} store behaves like its model under random commands`, () => {
  it('keeps every job in exactly one state, never loses one, never hands one out twice', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands([enqueue, enqueue, claim, claim, complete, complete, fail, fail, expire, promote, cancel, retryDead, retryDead, stale, stale], { size: 'large', maxCommands: 40 }), async (cmds) => {
        const db = open();
        const store = db.store;
        const clock = { ...systemClock, t: 1_000_000, now: (): number => clock.t };
        // The engine the product builds, on this store and clock.
        const engine = createEngine({ store, clock, logger: silentLogger, jobs: JOBS, retention: {}, maxPayloadBytes: 1024 });
        try {
          const notices: JobTransitionEvent[] = [];
          engine.events$.subscribe((e) => isTransition(e) && notices.push(e));
          const real: Real = { store, apply: engine.apply, clock, registry: engine.registry, notices, leases: new Map() };
          const model = (): Model => ({ t: clock.t, jobs: new Map(), keys: new Map(), lost: [], committed: 0 });
          await fc.asyncModelRun(() => ({ model: model(), real }), cmds);
        } finally {
          await engine.close();
          db.cleanup();
        }
      }),
      // Sized for a busy 2-core machine: a few seconds, a fraction of the timeout.
      { numRuns: propertyRuns(50) },
    );
    // PostgreSQL takes a store per run: ~12 s when quiet, several times that on a loaded machine.
  }, 120_000);
});
