/**
 * The dashboard's live counts follow the store: after enqueues, claims and
 * completions, failures to dead, retries, cancels, deletions by retention,
 * and work done by another connection to the same file (another process),
 * they equal `queue.stats()`. The feed sees that other connection's changes.
 */
import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { FeedMessage } from '../../src/live/change-feed.js';
import { createDashboardLive, type DashboardLive } from '../../src/live/live.js';
import { defineJob, type Queue } from '../../src/index.js';
import { HOUR_MS } from '../../src/live/series-buckets.js';
import { createTimeSeries } from '../../src/live/time-series.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';
import { internalsOf } from '../../src/queue-internals.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { events } from '../helpers/wait.js';

const fx = useQueues();
const lives: DashboardLive[] = [];
afterEach(async () => {
  for (const live of lives.splice(0)) await live.close();
});

const open = (queue: Queue, options: Parameters<typeof createDashboardLive>[1] = {}) => {
  // No drift check unless a test asks: the changes alone must keep the counts exact.
  const live = createDashboardLive(queue, { intervalMs: 20, sliceIds: 3, ...options });
  lives.push(live);
  return live;
};

/** stats() in the shape of the live counts: states, and names per state. */
async function expected(queue: Queue) {
  const stats = await queue.stats();
  const names: Record<string, Record<string, number>> = {};
  for (const [name, byState] of Object.entries(stats.byName)) {
    for (const [state, n] of Object.entries(byState)) {
      names[state] ??= {};
      names[state][name] = n;
    }
  }
  return { total: stats.total, states: stats.byState, names };
}

const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** Waits until the live counts equal the store's (they follow a read behind). */
async function countsSettle(live: DashboardLive, queue: Queue, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const want = await expected(queue);
    const { total, states, names, seeding } = await live.counts();
    // As JSON carries them: the counts are records without a prototype (a job may be named __proto__).
    if (seeding === undefined && isDeepStrictEqual(plain({ total, states, names }), plain(want))) return;
    if (Date.now() > deadline) {
      expect({ total, states, names, seeding }).toEqual(want);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
};

describe('live counts', () => {
  it('equal stats() through enqueues, completions, failures to dead, retries and cancels', async () => {
    const hold = gate();
    const jobs = [
      defineJob({ name: 'ok', handler: () => 'done' }),
      defineJob({ name: 'bad', retry: { attempts: 2, backoff: { type: 'fixed', delay: 1 } }, handler: () => { throw new Error('no'); } }),
      defineJob({ name: 'slow', handler: async () => hold.opened }),
    ];
    const q = fx.open({ jobs, concurrency: 2 });
    // Jobs there before the live counts: the seed counts them, 3 ids per read.
    for (let i = 0; i < 10; i++) await q.enqueue('ok', { i });
    await q.enqueue('bad', {});
    const live = open(q);
    await countsSettle(live, q);
    expect((await live.counts()).states).toEqual({ pending: 11 });

    const dead = events(q.events$, (e) => e.to === 'dead', 1);
    const completed = events(q.events$, (e) => e.to === 'completed', 10);
    await q.start();
    await Promise.all([dead, completed]);
    await countsSettle(live, q);
    expect((await live.counts()).states).toEqual({ completed: 10, dead: 1 });

    const retried = events(q.events$, (e) => e.to === 'dead', 1);
    await q.retryDead();
    await retried;
    await countsSettle(live, q);
    const running = events(q.events$, (e) => e.to === 'processing' && e.job.name === 'slow', 2);
    const slow = await q.enqueueMany([{ name: 'slow', payload: 1 }, { name: 'slow', payload: 2 }, { name: 'slow', payload: 3 }]);
    await running;
    await q.cancel(slow[2]!.id); // still pending: concurrency 2
    await countsSettle(live, q);
    expect((await live.counts()).states).toMatchObject({ processing: 2, cancelled: 1, dead: 1 });
    hold.open();
  });

  it('are exact when jobs move while the seed is counted slice by slice', async () => {
    const q = fx.open({ concurrency: 1, jobs: [defineJob({ name: 'm', handler: () => new Promise((resolve) => setTimeout(resolve, 2)) })] });
    await q.enqueueMany(Array.from({ length: 60 }, (_, i) => ({ name: 'm', payload: i })));
    const done = events(q.events$, (e) => e.to === 'completed', 60);
    await q.start();
    // 2 ids per read: the seed takes 30 reads while jobs are claimed and completed; no drift check to set it right.
    const live = open(q, { sliceIds: 2 });
    const seen = live.counts();
    await done;
    expect((await seen).seeding).toBeUndefined();
    await countsSettle(live, q);
    expect((await live.counts()).states).toEqual({ completed: 60 });
  });

  it('follow deletions by retention (seen by the store deletions count)', async () => {
    const q = fx.open({ retention: { completed: 0 }, jobs: [defineJob({ name: 'gone', handler: () => 1 })] });
    await q.enqueueMany(Array.from({ length: 5 }, (_, i) => ({ name: 'gone', payload: i })));
    await q.enqueue('kept', {});
    const live = open(q);
    await countsSettle(live, q);
    const done = events(q.events$, (e) => e.to === 'completed', 5);
    await q.start();
    await done;
    await countsSettle(live, q);
    expect(await live.counts()).toMatchObject({ total: 1, states: { pending: 1 } });
  });

  it('follow another connection to the file, and the feed sees its transitions', async () => {
    const reader = fx.open();
    const live = open(reader);
    const received: FeedMessage[] = [];
    const unsubscribe = await live.subscribe((m) => received.push(m));
    const worker = fx.open({ jobs: [defineJob({ name: 'w', handler: () => 'ok' })] });
    await worker.enqueueMany(Array.from({ length: 7 }, (_, i) => ({ name: 'w', payload: i })));
    const done = events(worker.events$, (e) => e.to === 'completed', 7);
    await worker.start();
    await done;
    await countsSettle(live, worker);
    expect((await live.counts()).states).toEqual({ completed: 7 });
    const sum = (event: string) =>
      received.reduce((n, m) => n + (m.event === 'tick' ? m.data.transitions.filter((t) => t.event === event).reduce((a, t) => a + t.count, 0) : 0), 0);
    const deadline = Date.now() + 10_000;
    while (sum('job.complete') < 7 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sum('job.claim')).toBe(7);
    expect(sum('job.complete')).toBe(7);
    expect(received.reduce((n, m) => n + (m.event === 'tick' ? m.data.enqueued : 0), 0)).toBe(7);
    const names = new Set(received.flatMap((m) => (m.event === 'tick' ? m.data.transitions.map((t) => t.name) : [])));
    expect([...names]).toEqual(['w']);
    unsubscribe();
  });

  it('are set right by the periodic recount when a process keeps no history', async () => {
    const reader = fx.open();
    const live = open(reader, { reseedMs: 100 });
    await countsSettle(live, reader);
    const quiet = fx.open({ history: false, jobs: [defineJob({ name: 'q', handler: () => 'ok' })] });
    await quiet.enqueueMany(Array.from({ length: 4 }, (_, i) => ({ name: 'q', payload: i })));
    const done = events(quiet.events$, (e) => e.to === 'completed', 4);
    await quiet.start();
    await done;
    // Nothing in the history: only the recount sees pending → completed.
    await countsSettle(live, quiet);
    expect((await live.counts()).states).toEqual({ completed: 4 });
  });
});

describe('series rebuilt from the history at start', () => {
  it('hold the hour before the live data began: completions, failures, waits and the backlog', async () => {
    const jobs = [
      defineJob({ name: 'ok', handler: () => 'done' }),
      defineJob({ name: 'bad', retry: { attempts: 2, backoff: { type: 'fixed', delay: 1 } }, handler: () => { throw new Error('no'); } }),
    ];
    const q = fx.open({ jobs });
    const began = Math.floor(Date.now() / 1000) * 1000;
    await q.enqueueMany([...Array.from({ length: 5 }, (_, i) => ({ name: 'ok', payload: i })), { name: 'bad', payload: 0 }]);
    const finished = events(q.events$, (e) => e.to === 'completed' || e.to === 'dead', 6);
    await q.start();
    await finished;
    await q.stop();
    await q.enqueueMany([{ name: 'ok', payload: 'waiting' }, { name: 'later', payload: 1 }]);
    const live = open(q);
    const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
    const deadline = Date.now() + 10_000;
    let series = await live.series();
    // The backlog's last point comes from the live counts, which may still be seeding when the history is read: waited for too.
    const backlogIn = () => series.backlog.names.ok?.at(-1) === 1 && series.backlog.names.later?.at(-1) === 1;
    while ((sum(series.throughput.completed) < 5 || sum(series.throughput.failed) < 2 || !backlogIn()) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      series = await live.series();
    }
    expect(sum(series.throughput.completed)).toBe(5);
    expect(sum(series.throughput.failed)).toBe(2); // both attempts of `bad`
    expect(series.latency.p50.some((p) => p !== null)).toBe(true);
    expect(series.backlog.names.ok!.at(-1)).toBe(1);
    expect(series.backlog.names.later!.at(-1)).toBe(1);
    // Before the jobs were enqueued, nothing was pending.
    expect(series.backlog.names.ok![0]).toBe(0);
    // A queue new this hour: the data begins with its first change, not an hour ago.
    expect(series.since).toBeGreaterThanOrEqual(began);
    expect(series.since).toBeLessThanOrEqual(Date.now());
  });
});

describe('series since, rebuilt from a history longer than the read', () => {
  it('begins at the oldest change read, not an hour ago, when the read was cut short', async () => {
    const clock = createVirtualClock(Date.now() - 3 * HOUR_MS);
    const q = fx.open({ clock });
    await q.enqueue('old', {}); // the queue existed before the hour drawn
    await clock.advance(2.5 * HOUR_MS);
    for (let i = 0; i < 5; i++) {
      await q.enqueue('recent', { i });
      await clock.advance(60_000);
    }
    const { store } = internalsOf(q);
    const upTo = await store.cursorAt!(clock.now() + 1);
    const series = createTimeSeries(clock.now);
    await series.rebuild(store, upTo, {}, { maxRows: 2 });
    // Two rows read of the five this hour: the data is known from the fourth minute on, not from an hour ago.
    expect(series.view().since).toBeGreaterThan(clock.now() - 4 * 60_000);
    const whole = createTimeSeries(clock.now);
    await whole.rebuild(store, upTo, {});
    expect(whole.view().since).toBe(clock.now() - HOUR_MS);
  });
});
