/**
 * queue.stop() while jobs are in flight, in one process under load:
 * with time to spare, running jobs finish; with none, they go back to
 * `pending` without spending an attempt. Either way a second queue on the same
 * database finishes the rest: nothing lost, nothing done twice.
 */
import type { Subscription } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createQueue, defineJob, isTransition, type JobTransitionEvent as QueueEvent, type Queue } from '../../src/index.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { useQueues, type QueueTarget } from '../helpers/queue-fixture.js';
import { nextEvent } from '../helpers/wait.js';

const JOBS = 3000;
const CONCURRENCY = 8;

const fx = useQueues();
const queues: Queue[] = [];
const subscriptions: Subscription[] = [];
// Registered after the fixture's: runs first, so these queues close before their database goes.
afterEach(async () => {
  for (const s of subscriptions.splice(0)) s.unsubscribe();
  for (const q of queues.splice(0)) await q.close({ timeout: 100 });
});

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Waits until the signal aborts (a handler that only ends when told to). */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}

const setup = (): QueueTarget => fx.target();

/** Rows of the jobs with these ids (ordered by id). */
async function jobsIn<R>(columns: string, ids: Iterable<number>): Promise<R[]> {
  const wanted = new Set(ids);
  const rows = await fx.sql<R & { id: number }>(`SELECT id, ${columns} FROM jobs ORDER BY id`);
  return rows.filter((r) => wanted.has(r.id));
}

async function enqueueAll(path: QueueTarget): Promise<void> {
  const producer = createQueue({ ...path, logger: silentLogger });
  for (let b = 0; b < JOBS; b += 500) {
    await producer.enqueueMany(Array.from({ length: 500 }, (_, i) => ({ name: 'work', payload: { n: b + i } })));
  }
  await producer.close();
}

function open(path: QueueTarget, handler: (payload: { n: number }, ctx: { jobId: number; signal: AbortSignal }) => Promise<unknown>): Queue {
  const q = createQueue({ ...path, concurrency: CONCURRENCY, lease: 30_000, logger: silentLogger, jobs: [defineJob({ name: 'work', handler })] });
  queues.push(q);
  return q;
}

/** Records every event a queue emits. */
function record(q: Queue): QueueEvent[] {
  const seen: QueueEvent[] = [];
  subscriptions.push(q.events$.subscribe((e) => isTransition(e) && seen.push(e)));
  return seen;
}

function completedIds(events: readonly QueueEvent[]): number[] {
  return events.filter((e) => e.type === 'job:completed').map((e) => e.job.id);
}

/** Every job completed, each with exactly one processing → completed transition. */
async function expectAllCompletedOnce(): Promise<void> {
  expect(await fx.sql('SELECT state, count(*) AS n FROM jobs GROUP BY state')).toEqual([{ state: 'completed', n: JOBS }]);
  const perJob = await fx.sql<{ job_id: number; n: number }>(
    "SELECT job_id, count(*) AS n FROM job_history WHERE from_state = 'processing' AND to_state = 'completed' GROUP BY job_id",
  );
  expect(perJob.length).toBe(JOBS);
  expect(perJob.filter((r) => r.n !== 1)).toEqual([]);
}

describe('queue.stop() under load', () => {
  it('with a generous timeout lets every in-flight job finish, and a second queue drains the rest exactly once', async () => {
    const path = setup();
    await enqueueAll(path);

    const started = new Set<number>();
    const finished = new Set<number>();
    // Resolved from inside the 600th handler as it starts: that handler is certainly in flight then.
    let onStarted!: () => void;
    const manyStarted = new Promise<void>((resolve) => (onStarted = resolve));
    const first = open(path, async (payload, ctx) => {
      started.add(ctx.jobId);
      if (started.size === 600) onStarted();
      // Long enough (10–29 ms) that a stop which did not wait would catch them mid-run.
      await abortableSleep(10 + (payload.n % 20), ctx.signal);
      finished.add(ctx.jobId);
      return payload.n;
    });
    const firstEvents = record(first);
    await first.start();
    await manyStarted;

    const inFlightAtStop = [...started].filter((id) => !finished.has(id));
    expect(inFlightAtStop.length, 'handlers running when stop() is called').toBeGreaterThan(0);
    await first.stop({ timeout: 10_000 });
    const startedByFirst = new Set(started);

    // Every job the first queue started has finished and is recorded as completed; none was aborted.
    expect([...startedByFirst].filter((id) => !finished.has(id))).toEqual([]);
    {
      expect(await fx.value("SELECT count(*) FROM jobs WHERE state = 'processing'")).toBe(0);
      const states = await jobsIn<{ id: number; state: string }>('state', startedByFirst);
      expect(states.length).toBe(startedByFirst.size);
      expect(states.filter((s) => s.state !== 'completed')).toEqual([]);
      expect(await fx.value("SELECT count(*) FROM job_history WHERE event IN ('job.expire', 'job.fail')")).toBe(0);
      // Only jobs claimed ahead (prefetch) and never started are put back, without spending an attempt.
      const releasedIds = (await fx.sql<{ job_id: number }>("SELECT job_id FROM job_history WHERE event = 'job.release'")).map((r) => r.job_id);
      expect(releasedIds.filter((id) => startedByFirst.has(id))).toEqual([]);
      const releasedRows = await jobsIn<{ state: string; attempts: number }>('state, attempts', releasedIds);
      expect(releasedRows.every((r) => r.state === 'pending' && r.attempts === 0)).toBe(true);
      // The rest is still waiting, untouched.
      expect(await fx.value("SELECT count(*) FROM jobs WHERE state = 'pending' AND attempts = 0")).toBe(JOBS - startedByFirst.size);
    }
    expect(new Set(completedIds(firstEvents))).toEqual(startedByFirst);
    expect(JOBS - startedByFirst.size).toBeGreaterThan(0); // the second queue has work left
    await first.close();

    const second = open(path, async (payload, ctx) => {
      await abortableSleep(1, ctx.signal);
      return payload.n;
    });
    const secondEvents = record(second);
    const rest = nextEvent(second.events$, () => completedIds(secondEvents).length === JOBS - startedByFirst.size, 60_000);
    await second.start();
    await rest;
    await second.stop({ timeout: 10_000 });

    const all = [...completedIds(firstEvents), ...completedIds(secondEvents)];
    expect(all.length).toBe(JOBS); // nothing done twice …
    expect(new Set(all).size).toBe(JOBS); // … and nothing lost
    expect(completedIds(secondEvents).filter((id) => startedByFirst.has(id))).toEqual([]);
    await expectAllCompletedOnce();
  }, 90_000);

  it('with a tiny timeout puts in-flight jobs back to pending without spending an attempt, and a new queue finishes them', async () => {
    const path = setup();
    await enqueueAll(path);

    // Short jobs until 500 have completed; from then on each handler waits on its signal.
    let block = false;
    const blocked = new Set<number>();
    const ran = new Set<number>();
    let allBlocked!: () => void;
    const eightBlocked = new Promise<void>((resolve) => (allBlocked = resolve));
    const first = open(path, async (payload, ctx) => {
      ran.add(ctx.jobId);
      if (!block) {
        await abortableSleep(2 + (payload.n % 3), ctx.signal);
        return payload.n;
      }
      blocked.add(ctx.jobId);
      if (blocked.size === CONCURRENCY) allBlocked();
      return untilAborted(ctx.signal);
    });
    const firstEvents = record(first);
    const some = nextEvent(first.events$, () => completedIds(firstEvents).length >= 500, 20_000);
    await first.start();
    await some;
    block = true;
    await eightBlocked; // every worker holds a job whose handler is waiting on its signal

    const rowsOf = (ids: Iterable<number>) => jobsIn<{ id: number; state: string; attempts: number; lease_token: string | null }>('state, attempts, lease_token', ids);
    const held = await rowsOf(blocked);
    expect(held.map((r) => r.state)).toEqual(Array(CONCURRENCY).fill('processing'));
    expect(held.map((r) => r.attempts)).toEqual(Array(CONCURRENCY).fill(1));
    const tokenOf = new Map(held.map((r) => [r.id, r.lease_token!]));

    const t0 = Date.now();
    await first.stop({ timeout: 20 });
    const stopMs = Date.now() - t0;
    expect(stopMs).toBeLessThan(5_000); // it did not wait for handlers that never end

    const after = await rowsOf(blocked);
    expect(after).toEqual(held.map((r) => ({ id: r.id, state: 'pending', attempts: 0, lease_token: null })));
    for (const id of blocked) {
      const history = await fx.sql('SELECT from_state, to_state, event, lease_token FROM job_history WHERE job_id = ? ORDER BY id', [id]);
      expect(history, `job ${id}`).toEqual([
        { from_state: 'pending', to_state: 'processing', event: 'job.claim', lease_token: tokenOf.get(id) },
        { from_state: 'processing', to_state: 'pending', event: 'job.release', lease_token: tokenOf.get(id) },
      ]);
    }
    const released = firstEvents.filter((e) => e.event === 'job.release');
    const releasedIds = new Set(released.map((e) => e.job.id));
    // The blocked handlers' jobs, plus jobs claimed ahead (prefetch) that no handler ever saw.
    expect([...blocked].filter((id) => !releasedIds.has(id))).toEqual([]);
    expect([...releasedIds].filter((id) => !blocked.has(id) && ran.has(id))).toEqual([]);
    expect(released.every((e) => e.from === 'processing' && e.to === 'pending' && e.attempts === 0)).toBe(true);
    expect(await fx.value("SELECT count(*) FROM jobs WHERE state = 'processing'")).toBe(0);
    await first.close();

    const firstDone = completedIds(firstEvents);
    const second = open(path, async (payload, ctx) => {
      await abortableSleep(1, ctx.signal);
      return payload.n;
    });
    const secondEvents = record(second);
    const rest = nextEvent(second.events$, () => completedIds(secondEvents).length === JOBS - firstDone.length, 60_000);
    await second.start();
    await rest;
    await second.stop({ timeout: 10_000 });

    const all = [...firstDone, ...completedIds(secondEvents)];
    expect(all.length).toBe(JOBS);
    expect(new Set(all).size).toBe(JOBS);
    // The released jobs ran again in the second queue, as their first counted attempt.
    const secondRuns = secondEvents.filter((e) => e.type === 'job:completed' && blocked.has(e.job.id));
    expect(secondRuns.map((e) => e.attempts)).toEqual(Array(CONCURRENCY).fill(1));
    await expectAllCompletedOnce();
  }, 90_000);
});
