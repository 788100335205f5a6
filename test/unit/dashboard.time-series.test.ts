/** The dashboard's hour of series: buckets, the ring's wrap, percentiles from histograms, the backlog walked back. */
import { describe, expect, it } from 'vitest';
import { backlogBackwards, GROWTH, HOUR_MS, newHistogram, quantile, record, type PendingDelta } from '../../src/live/series-buckets.js';
import { createTimeSeries, pendingDeltas } from '../../src/live/time-series.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';
import { seededRandom } from '../../src/lib/seeded-random.js';

const T0 = 1_796_120_000_000; // a whole second, a whole 10 s
const done = (second: number, count: number) => ({ second, from: 'processing', to: 'completed', event: 'job.complete', candidate: null, name: 'a', marked: false, count });
const fail = (second: number, to: string, count: number) => ({ second, from: 'processing', to, event: 'job.fail', candidate: null, name: 'a', marked: false, count });

describe('since: where the data begins', () => {
  it('is the start of the live feed when nothing was rebuilt, and moves with clear()', async () => {
    const clock = createVirtualClock(T0);
    const series = createTimeSeries(clock.now);
    await clock.advance(30_000);
    expect(series.view().since).toBe(T0);
    series.clear();
    expect(series.view().since).toBe(T0 + 30_000);
    // Never further back than the hour drawn.
    await clock.advance(2 * HOUR_MS);
    expect(series.view().since).toBe(T0 + 30_000 + HOUR_MS);
  });
});

describe('throughput per second', () => {
  it('counts each transition in the second of its time, the newest bucket holding now', async () => {
    const clock = createVirtualClock(T0 + 500);
    const series = createTimeSeries(clock.now);
    series.add({ transitions: [done(T0 / 1000, 3), done(T0 / 1000 - 1, 2), fail(T0 / 1000 - 1, 'failed', 1), fail(T0 / 1000, 'dead', 4)], enqueued: [], latency: [] });
    const v = series.view().throughput;
    expect(v.step).toBe(1000);
    expect(v.end).toBe(T0 + 1000);
    expect(v.completed).toHaveLength(3600);
    expect(v.completed.at(-1)).toBe(3);
    expect(v.completed.at(-2)).toBe(2);
    expect(v.failed.at(-1)).toBe(4);
    expect(v.failed.at(-2)).toBe(1);
    expect(v.completed.slice(0, -2).every((n) => n === 0)).toBe(true);
    // Time moves on: the same counts slide left.
    await clock.advance(5000);
    const later = series.view().throughput;
    expect(later.end).toBe(T0 + 6000);
    expect(later.completed.at(-6)).toBe(3);
    expect(later.completed.at(-7)).toBe(2);
  });

  it('wraps after an hour: a second an hour old is gone, and its slot holds only the new second', async () => {
    const clock = createVirtualClock(T0);
    const series = createTimeSeries(clock.now);
    series.add({ transitions: [done(T0 / 1000, 7)], enqueued: [], latency: [] });
    await clock.advance(HOUR_MS - 1000);
    expect(series.view().throughput.completed[0]).toBe(7);
    await clock.advance(1000);
    expect(series.view().throughput.completed.reduce((a, b) => a + b, 0)).toBe(0);
    // The second an hour later takes the same slot: it starts from zero.
    series.add({ transitions: [done(T0 / 1000 + 3600, 1)], enqueued: [], latency: [] });
    expect(series.view().throughput.completed.at(-1)).toBe(1);
    // A change older than the window is dropped; one ahead of now counts now.
    series.add({ transitions: [done(T0 / 1000, 5), done(T0 / 1000 + 3605, 2)], enqueued: [], latency: [] });
    expect(series.view().throughput.completed.at(-1)).toBe(3);
    expect(series.view().throughput.completed.reduce((a, b) => a + b, 0)).toBe(3);
  });
});

describe('wait percentiles per 10 s', () => {
  it('reads p50 and p99 off the histogram within its bin error', () => {
    const random = seededRandom(7);
    for (let round = 0; round < 20; round++) {
      const h = newHistogram();
      const samples: number[] = [];
      const n = 50 + Math.floor(random() * 2000);
      for (let i = 0; i < n; i++) {
        const ms = Math.round(Math.exp(random() * 14)); // 1 ms … 20 min
        samples.push(ms);
        record(h, ms);
      }
      samples.sort((a, b) => a - b);
      for (const q of [0.5, 0.99]) {
        const exact = samples[Math.max(1, Math.ceil(q * n)) - 1]!;
        const got = quantile(h, q)!;
        expect(got).toBeGreaterThanOrEqual(Math.floor(exact / Math.sqrt(GROWTH)) - 1);
        expect(got).toBeLessThanOrEqual(Math.ceil(exact * Math.sqrt(GROWTH)) + 1);
      }
    }
    expect(quantile(newHistogram(), 0.5)).toBeNull();
  });

  it('puts each sample in the 10 s bucket of its time; empty buckets are null', () => {
    const clock = createVirtualClock(T0 + 25_000);
    const series = createTimeSeries(clock.now);
    series.add({ transitions: [], enqueued: [], latency: [{ at: T0 + 21_000, ms: 100 }, { at: T0 + 22_000, ms: 100 }, { at: T0 + 5_000, ms: 2000 }] });
    const v = series.view().latency;
    expect(v.end).toBe(T0 + 30_000);
    expect(v.p50).toHaveLength(360);
    expect(v.p50.at(-1)).toBeCloseTo(100, -1);
    expect(v.p50.at(-2)).toBeNull();
    expect(Math.abs(v.p99.at(-3)! - 2000)).toBeLessThan(2000 * 0.05);
  });
});

describe('backlog walked back from now', () => {
  it('matches a forward simulation at every bucket end', () => {
    const random = seededRandom(11);
    const step = 10_000;
    const len = 360;
    for (let round = 0; round < 10; round++) {
      const now = T0 + Math.floor(random() * step);
      const names = ['a', 'b', 'c'];
      const start: Record<string, number> = { a: 5, b: 0, c: 12 };
      // Events over the hour (and a little before it), in time order, each a creation, a claim or a retry back to pending.
      const events: PendingDelta[] = [];
      for (let i = 0; i < 3000; i++) events.push({ at: now - HOUR_MS - 30_000 + Math.floor(random() * (HOUR_MS + 30_000)), name: names[Math.floor(random() * 3)]!, delta: random() < 0.5 ? 1 : -1 });
      events.sort((x, y) => x.at - y.at);
      const end = Math.floor(now / step) * step + step;
      // Forward: the pending count of each name after every event before each bucket's end.
      const pending = { ...start };
      const expected: Record<string, number[]> = { a: [], b: [], c: [] };
      let e = 0;
      for (let i = 0; i < len; i++) {
        const bucketEnd = Math.min(end - (len - i - 1) * step, now + 1);
        while (e < events.length && events[e]!.at < bucketEnd) {
          pending[events[e]!.name]! += events[e]!.delta;
          e++;
        }
        for (const name of names) expected[name]!.push(pending[name]!);
      }
      const got = backlogBackwards(pending, events, { now, step, len, complete: now - HOUR_MS - 30_000 });
      expect(got.end).toBe(end);
      expect(got.names).toEqual(expected);
    }
  });

  it('leaves buckets before the changes it was given unknown (null)', () => {
    const now = T0 + 5000;
    const got = backlogBackwards({ a: 3 }, [{ at: now - 15_000, name: 'a', delta: 2 }], { now, step: 10_000, len: 360, complete: now - 30_000 });
    expect(got.names.a!.slice(-5)).toEqual([null, 1, 1, 3, 3]);
  });

  it('reads creations and moves into and out of pending off a batch', () => {
    const batch = {
      enqueued: [{ second: 10, name: 'a', count: 4 }],
      transitions: [
        { second: 11, from: 'pending', to: 'processing', event: 'job.claim', candidate: null, name: 'a', marked: false, count: 3 },
        { second: 12, from: 'failed', to: 'pending', event: 'xstate.after', candidate: null, name: 'a', marked: false, count: 1 },
        { second: 12, from: 'processing', to: 'completed', event: 'job.complete', candidate: null, name: 'a', marked: false, count: 2 },
        { second: 12, from: 'pending', to: 'processing', event: 'job.claim', candidate: null, name: null, marked: false, count: 9 },
      ],
    };
    expect(pendingDeltas(batch)).toEqual([
      { at: 10_000, name: 'a', delta: 4 },
      { at: 11_000, name: 'a', delta: -3 },
      { at: 12_000, name: 'a', delta: 1 },
    ]);
  });
});
