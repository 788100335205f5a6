/**
 * Rate limits, RateLimitedError pauses and throttle windows in real time,
 * on either store, when the claim and the start are apart and when the
 * processes' clocks are: queues sharing one database as separate hosts
 * would, each on a wall clock of its own (700 ms ahead, 700 ms behind).
 * Starts and creations are timed on the machine's clock, which the
 * database's (the host's for SQLite, the server's for PostgreSQL) is.
 */
import { describe, expect, it } from 'vitest';
import { defineJob, RateLimitedError, type Clock, type Store } from '../../src/index.js';
import { clampDelay } from '../../src/lib/clock.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { waitFor } from '../helpers/wait.js';

/** Waits until `done()` holds, looking every 20 ms. */
async function until(done: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not done within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const fx = useQueues();

/** A wall clock `skew` ms off the machine's, as another host's would be. */
const offBy = (skew: number): Clock => ({
  now: () => Date.now() + skew,
  setTimeout: (fn, ms) => setTimeout(fn, clampDelay(ms)),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
});

/** The windows of `per` ms that hold more than `max` of `times`, as [first, last] pairs. */
function crowded(times: readonly number[], max: number, per: number): Array<[number, number]> {
  const sorted = [...times].sort((a, b) => a - b);
  const out: Array<[number, number]> = [];
  for (let i = 0; i + max < sorted.length; i++) if (sorted[i + max]! - sorted[i]! < per) out.push([sorted[i]!, sorted[i + max]!]);
  return out;
}

/** A rate-limited job 'call' that notes when each run started, on the machine's clock. */
function ratedCalls(max: number, per: number) {
  const starts: number[] = [];
  const job = defineJob({ name: 'call', rateLimit: { max, per }, handler: () => void starts.push(Date.now()) });
  return { job, starts };
}

/** The store, with the answers of the claims `slow` picks held back `ms` (a busy event loop, a far database). */
function slowClaims(store: Store, slow: (n: number) => boolean, ms: number): Store {
  let n = 0;
  return new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      if (prop !== 'claim') return (v as (...a: unknown[]) => unknown).bind(target);
      return async (...args: unknown[]) => {
        const out = (await (v as (...a: unknown[]) => Promise<{ jobs: unknown[] }>).apply(target, args)) as { jobs: unknown[] };
        if (out.jobs.length > 0 && slow(n++)) await new Promise((resolve) => setTimeout(resolve, ms));
        return out;
      };
    },
  });
}

describe('rate limits count starts', () => {
  it('no window of per holds more than max starts, even when a claim comes back late', async () => {
    const { job, starts } = ratedCalls(3, 300);
    // Every other claim that took jobs answers 60 ms late: its jobs would start 60 ms after their tokens were spent.
    const store = slowClaims(fx.store(), (n) => n % 2 === 0, 60);
    const q = fx.open({ store, jobs: [job], concurrency: 4, pollInterval: 20 });
    await q.enqueueMany(Array.from({ length: 15 }, (_, i) => ({ name: 'call', payload: { i } })));
    await q.start();
    await until(async () => ((await q.stats()).byState.completed ?? 0) === 15);
    expect(starts).toHaveLength(15);
    expect(crowded(starts, 3, 300)).toEqual([]);
  });
  it('a job on a worker thread that gets its thread past its start deadline goes back unstarted', async () => {
    // One thread for three workers: the jobs of one claim queue for it, 60 ms each.
    const job = defineJob({ name: 'call', rateLimit: { max: 3, per: 400 }, isolation: 'thread', module: new URL('../fixtures/thread-handlers/started.ts', import.meta.url), retry: { attempts: 1 } });
    const q = fx.open({ jobs: [job], concurrency: 3, threads: 1, pollInterval: 20 });
    const ids = (await q.enqueueMany(Array.from({ length: 6 }, () => ({ name: 'call', payload: { ms: 60 } })))).map((r) => r.id);
    await q.start();
    await until(async () => ((await q.stats()).byState.completed ?? 0) === 6);
    const starts = await Promise.all(ids.map(async (id) => ((await q.getJob(id)).result as { at: number }).at));
    expect(crowded(starts, 3, 400)).toEqual([]);
    // Some went back unstarted, their attempt given back.
    const histories = await Promise.all(ids.map((id) => q.history(id)));
    expect(histories.flat().filter((t) => t.event === 'job.release').length).toBeGreaterThan(0);
    expect(await Promise.all(ids.map(async (id) => (await q.getJob(id)).attempts))).toEqual([1, 1, 1, 1, 1, 1]);
  });
});

describe('whose clock rules: the database’s', () => {
  it('rate-limit tokens last per in real time on hosts 1.4 s apart', async () => {
    const { job, starts } = ratedCalls(3, 400);
    const ahead = fx.open({ clock: offBy(700), jobs: [job], concurrency: 3, pollInterval: 20 });
    const behind = fx.open({ clock: offBy(-700), jobs: [job], concurrency: 3, pollInterval: 20 });
    await ahead.enqueueMany(Array.from({ length: 15 }, (_, i) => ({ name: 'call', payload: { i } })));
    // The host behind spends the bucket first; the host ahead must find it spent.
    await behind.start();
    await waitFor(() => starts.length >= 3);
    await ahead.start();
    await until(async () => ((await ahead.stats()).byState.completed ?? 0) === 15);
    expect(starts).toHaveLength(15);
    expect(crowded(starts, 3, 400)).toEqual([]);
  });

  it('a RateLimitedError pause lasts its delay in real time on every host', async () => {
    const starts: Array<{ tag: string; at: number }> = [];
    let pausedAt = 0;
    const job = defineJob({
      name: 'call',
      handler: async ({ tag }: { tag: string }) => {
        starts.push({ tag, at: Date.now() });
        if (tag === 'first' && pausedAt === 0) {
          pausedAt = Date.now();
          throw new RateLimitedError(1000, { scope: 'name' });
        }
      },
    });
    // The pause is written by the host behind; the host ahead reads it.
    const behind = fx.open({ clock: offBy(-700), jobs: [job], concurrency: 1, pollInterval: 20 });
    await behind.enqueue('call', { tag: 'first' });
    await behind.start();
    await waitFor(() => pausedAt > 0);
    await behind.close();
    const ahead = fx.open({ clock: offBy(700), jobs: [job], concurrency: 1, pollInterval: 20 });
    await ahead.enqueue('call', { tag: 'second' });
    await ahead.start();
    await waitFor(() => starts.some((s) => s.tag === 'second'));
    const second = starts.find((s) => s.tag === 'second')!;
    expect(second.at - pausedAt).toBeGreaterThanOrEqual(1000);
  });

  it('a RateLimitedError delay with a fraction of a millisecond pauses the name and puts the job back, in whole milliseconds', async () => {
    let threw = false;
    const job = defineJob({
      name: 'call',
      handler: async () => {
        if (threw) return;
        threw = true;
        throw new RateLimitedError(250.5, { scope: 'name' });
      },
    });
    const q = fx.open({ jobs: [job], concurrency: 1, pollInterval: 20 });
    const { id } = await q.enqueue('call', {});
    await q.start();
    await until(async () => (await q.getJob(id)).state === 'completed', 10_000);
    expect((await q.history(id)).map((t) => t.event)).toEqual(['job.enqueue', 'job.claim', 'job.release', 'job.claim', 'job.complete']);
    const [row] = await fx.sql<{ paused_until: number }>("SELECT paused_until FROM job_limits WHERE kind = 'name' AND key = 'call'");
    expect(Number.isInteger(Number(row!.paused_until))).toBe(true);
  });

  it('a RateLimitedError delay past a year pauses the name and puts the job back for a year, not forever', async () => {
    const job = defineJob({
      name: 'call',
      handler: async () => {
        throw new RateLimitedError(1e300, { scope: 'name' });
      },
    });
    const q = fx.open({ jobs: [job], concurrency: 1, pollInterval: 20 });
    const { id } = await q.enqueue('call', {});
    const before = Date.now();
    await q.start();
    await until(async () => (await q.history(id)).some((t) => t.event === 'job.release'), 10_000);
    const back = await q.getJob(id);
    expect(back).toMatchObject({ state: 'pending', attempts: 0 });
    const year = 366 * 24 * 3600 * 1000;
    expect(back.runAt.getTime() - before).toBeGreaterThanOrEqual(year - 1000);
    expect(back.runAt.getTime() - Date.now()).toBeLessThanOrEqual(year);
    const paused = (await q.limits()).names.find((n) => n.name === 'call')!.pausedUntil!.getTime();
    expect(paused - before).toBeGreaterThanOrEqual(year - 1000);
    expect(paused - Date.now()).toBeLessThanOrEqual(year + 1000);
  });

  it('a throttle window lasts its ms whichever host stamped it', async () => {
    const behind = fx.open({ clock: offBy(-700), pollInterval: 60_000 });
    const ahead = fx.open({ clock: offBy(700), pollInterval: 60_000 });
    const first = await behind.enqueue('mail', { n: 1 }, { throttle: { key: 'k', ms: 1000 } });
    const firstAt = Date.now();
    const second = await ahead.enqueue('mail', { n: 2 }, { throttle: { key: 'k', ms: 1000 } });
    // Only a second enqueued within the window's real second is dropped: one that took longer proves nothing.
    expect(Date.now() - firstAt).toBeLessThan(1000);
    expect(first.created).toBe(true);
    expect(second).toMatchObject({ id: first.id, created: false });
  });
});
