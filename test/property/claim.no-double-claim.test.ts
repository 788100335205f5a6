/**
 * Interleavings of concurrent workers over one store, ordered by fast-check's
 * scheduler: every store call (its start and its answer) and every "work" await
 * is a scheduled task, so fast-check picks which worker moves next.
 *
 * Property: no job is handed to a second worker while the first holds a live
 * lease, and every job ends in a finished state exactly once. A deliberately
 * racy claim (read, await, write without a state check) must be caught.
 * Runs on the store the suite names (SQLite, or PostgreSQL in the conformance
 * project, a schema per run); the racy claim is SQLite's own.
 */
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/create-engine.js';
import { isTransition } from '../../src/engine/core/events.js';
import { defineJob } from '../../src/engine/core/job-definition.js';
import { toContext } from '../../src/engine/core/machine-registry.js';
import { systemClock } from '../../src/lib/clock.js';
import { createPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { ClaimRequest, LeasedJob, Store } from '../../src/store/store.js';
import { pgUrl, usePgSchema } from '../helpers/postgres.js';
import { TEST_STORE } from '../helpers/queue-fixture.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';
import { propertyRuns } from '../helpers/property-runs.js';
import { machineEvent } from '../../src/engine/core/moves.js';
import type { JobEvent } from '../../machines/job.machine.js';

const NAME = 'job';
const LEASE = 1000;
const FINISHED = ['completed', 'dead'];
const JOB = defineJob({ name: NAME, handler: () => undefined, retry: { attempts: 2, backoff: { type: 'fixed', delay: 0 } } });

interface Plan { workers: number; jobs: number; limit: number; failSeed: number; sweeps: number }
interface Outcome { violations: string[]; overflow: string | null; finishes: Map<number, number>; states: Map<number, string>; total: number; chainsValid: boolean }
type Claim = (req: ClaimRequest) => Promise<LeasedJob[]>;

const newSchema = TEST_STORE === 'postgres' ? usePgSchema() : undefined;

/** A fresh store for one run: a file, or a PostgreSQL schema of its own; the racy claim needs the file. */
function freshStore(racy: boolean): { store: Store; path: string | null; cleanup(): void } {
  if (newSchema && !racy) {
    const store = createPostgresStore({ connection: pgUrl(), schema: newSchema(), poolSize: 4, history: true });
    return { store, path: null, cleanup: () => undefined };
  }
  const tmp = tempDbPath();
  const store = createSqliteStore({ path: tmp.path, durability: 'normal', cacheMiB: 8, busyTimeoutMs: 5000, history: true });
  return { store, path: tmp.path, cleanup: tmp.cleanup };
}

const planArb = fc.record({
  workers: fc.integer({ min: 2, max: 8 }),
  jobs: fc.integer({ min: 1, max: 30 }),
  limit: fc.integer({ min: 1, max: 3 }),
  failSeed: fc.nat(),
  sweeps: fc.integer({ min: 0, max: 2 }),
});

/** The broken claim: read candidate ids, yield, then write by id with no state check. */
function racyClaim(s: fc.Scheduler, db: Database.Database): Claim {
  let seq = 0;
  const select = db.prepare<[number, number], { id: number }>(`SELECT id FROM jobs WHERE state = 'pending' AND run_at <= ? ORDER BY priority DESC, run_at, id LIMIT ?`);
  const update = db.prepare<[string, string, number, number], { id: number; name: string; payload: string; attempts: number; timeout_ms: number | null; version: number }>(
    `UPDATE jobs SET state = 'processing', attempts = attempts + 1, version = version + 1, lease_owner = ?, lease_token = ?, locked_until = ? WHERE id = ? RETURNING id, name, payload, attempts, timeout_ms, version`,
  );
  return async (req) => {
    const ids = select.all(req.now, req.limit).map((r) => r.id);
    await s.schedule(Promise.resolve(), 'racy claim: between read and write');
    const token = `racy.${++seq}`;
    const lockedUntil = req.now + req.leaseMs;
    return ids.map((id) => {
      const r = update.get(req.owner, token, lockedUntil, id)!;
      return {
        id: r.id, name: r.name, state: 'processing', payload: r.payload, key: null, priority: 0, runAt: req.now, attempts: r.attempts, lastError: null,
        result: null, progress: null, retry: null, timeout: r.timeout_ms, ctx: null, leaseOwner: req.owner, leaseToken: token, lockedUntil, createdAt: req.now, updatedAt: req.now,
        version: r.version,
      };
    });
  };
}

async function runWorkers(s: fc.Scheduler, plan: Plan, racy: boolean): Promise<Outcome> {
  const { store, path, cleanup } = freshStore(racy);
  const raw = racy && path ? new Database(path) : undefined;
  const clock = { ...systemClock, t: 1_000_000, now: (): number => clock.t };
  // The engine the product builds, on this store and clock.
  const engine = createEngine({ store, clock, logger: silentLogger, jobs: [JOB], retention: {}, maxPayloadBytes: 1024 });
  try {
    const finishes = new Map<number, number>();
    const { apply, registry } = engine;
    engine.events$.subscribe((e) => {
      if (isTransition(e) && FINISHED.includes(e.to)) finishes.set(e.job.id, (finishes.get(e.job.id) ?? 0) + 1);
    });
    const newJob = { name: NAME, state: 'pending', payload: '{}', key: null, priority: 0, runAt: clock.t, retry: null, timeout: null };
    await store.insert(Array.from({ length: plan.jobs }, () => newJob), clock.t);
    const claim: Claim = raw ? racyClaim(s, raw) : async (req) => (await store.claim(req)).jobs;

    /**
     * A store call: fast-check decides when it starts and when its answer
     * arrives. (Not `s.schedule(fn())`: the scheduler awaits a released task's
     * own promise, which deadlocks when `fn` itself awaits a scheduled task.)
     */
    const step = async <T>(label: string, fn: () => Promise<T>): Promise<T> => {
      await s.schedule(Promise.resolve(), `${label} (call)`);
      const value = await fn();
      await s.schedule(Promise.resolve(), `${label} (answer)`);
      return value;
    };
    const holders = new Map<number, { worker: string; token: string; lockedUntil: number }>();
    const violations: string[] = [];
    const release = (id: number, token: string | null) => {
      if (holders.get(id)?.token === token) holders.delete(id);
    };

    const promote = async (who: string): Promise<number> => {
      const due = await step(`${who} dueJobs`, () => store.dueJobs([NAME], registry.delayedStates, clock.now(), 100));
      for (const d of due) {
        const next = registry.forJob(d.name, d.retry).due(d.state, toContext(d.attempts, d.lastError, d.ctx))!;
        await step(`${who} promote ${d.id}`, () => apply(d, machineEvent({ type: next.eventType })));
      }
      return due.length;
    };

    let handedOut = 0;
    let overflow: string | null = null;
    const worker = async (who: string): Promise<void> => {
      for (;;) {
        const jobs = await step(`${who} claim`, () => claim({ names: [NAME], limit: plan.limit, owner: who, leaseMs: LEASE, now: clock.now(), rule: registry.claimRule }));
        // Two attempts per job: more hand-outs than that means jobs came back from the dead.
        handedOut += jobs.length;
        if (handedOut > 2 * plan.jobs) {
          overflow = `${handedOut} hand-outs for ${plan.jobs} jobs of 2 attempts each`;
          return;
        }
        for (const c of jobs) {
          const h = holders.get(c.id);
          if (h && h.lockedUntil >= clock.now()) violations.push(`job ${c.id} handed to ${who} while ${h.worker} holds a live lease`);
          holders.set(c.id, { worker: who, token: c.leaseToken, lockedUntil: c.lockedUntil });
        }
        if (jobs.length === 0) {
          if ((await promote(who)) === 0) return;
          continue;
        }
        for (const c of jobs) {
          await s.schedule(Promise.resolve(), `${who} works on ${c.id}`);
          const fails = (c.id * 31 + c.attempts * 17 + plan.failSeed) % 3 === 0;
          const event: JobEvent = fails ? { type: 'job.fail', error: { name: 'Error', message: 'boom' }, random: 0 } : { type: 'job.complete' };
          const res = await step(`${who} settles ${c.id}`, () => apply(c, event, { workerId: who }));
          if (res.accepted && res.committed) release(c.id, c.leaseToken);
        }
      }
    };

    /** Crashed-worker simulation: time jumps past every lease, the sweeper expires them. */
    const sweeper = async (): Promise<void> => {
      for (let i = 0; i < plan.sweeps; i++) {
        await s.schedule(Promise.resolve(), 'clock jumps past the lease');
        clock.t += LEASE + 1;
        const expired = await step('sweeper expiredLeases', () => store.expiredLeases([NAME], clock.now(), 100));
        for (const d of expired) {
          const res = await step(`sweeper expires ${d.id}`, () =>
            apply(d, { type: 'job.expire', error: { name: 'LeaseExpiredError', message: 'expired' }, random: 0 }),
          );
          if (res.accepted && res.committed) release(d.id, d.leaseToken);
        }
      }
    };

    const actors = Array.from({ length: plan.workers }, (_, i) => worker(`w${i}`));
    // A last worker picks up whatever the sweeper turned back into work after the others left.
    await s.waitFor(Promise.all([...actors, sweeper()]).then(() => worker('late')));

    const states = new Map<number, string>();
    let chainsValid = true;
    for (const job of await store.list({ limit: 1000 })) {
      states.set(job.id, job.state);
      const h = await store.history(job.id);
      chainsValid &&= h.every((e, i) => (i === 0 ? e.from === null : e.from === h[i - 1]!.to)) && h.at(-1)?.to === job.state;
      // The audit trail agrees: one finishing transition per job.
      chainsValid &&= h.filter((e) => FINISHED.includes(e.to)).length === 1;
    }
    return { violations, overflow, finishes, states, total: (await store.stats()).total, chainsValid };
  } finally {
    raw?.close();
    await engine.close();
    cleanup();
  }
}

describe('concurrent workers never share a job', () => {
  it('hands each job to one live lease holder and finishes each exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), planArb, async (s, plan) => {
        const out = await runWorkers(s, plan, false);
        expect(out.violations).toEqual([]);
        expect(out.overflow).toBeNull();
        expect(out.total).toBe(plan.jobs);
        expect(out.states.size).toBe(plan.jobs);
        for (const [id, state] of out.states) {
          expect(FINISHED, `job ${id}`).toContain(state);
          expect(out.finishes.get(id), `finishing transitions of job ${id}`).toBe(1);
        }
        const counts: Record<string, number> = {};
        for (const st of out.states.values()) counts[st] = (counts[st] ?? 0) + 1;
        expect((counts.completed ?? 0) + (counts.dead ?? 0)).toBe(plan.jobs);
        expect(out.chainsValid).toBe(true);
      }),
      { numRuns: propertyRuns(50) },
    );
    // ~13 s on a quiet machine on PostgreSQL (a store per run); a loaded one takes several times that.
  }, 120_000);

  it('has teeth: finds the double claim of a read-then-write claim', async () => {
    const result = await fc.check(
      fc.asyncProperty(fc.scheduler(), planArb, async (s, plan) => {
        const out = await runWorkers(s, plan, true);
        if (out.violations.length > 0) throw new Error(out.violations.join('; '));
      }),
      { numRuns: 100 },
    );
    expect(result.failed).toBe(true);
    expect(result.numRuns).toBeLessThan(100);
    expect(String(result.errorInstance)).toContain('holds a live lease');
  });
});
