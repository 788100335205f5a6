/** The overview's figures per job name: counts and pauses beside them, rates over five minutes, the hour per minute, wait percentiles, the cap on names. */
import { describe, expect, it } from 'vitest';
import { createNameStats, MINUTE_MS } from '../../src/live/name-stats.js';
import { GROWTH, HOUR_MS } from '../../src/live/series-buckets.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';
import type { TransitionGroup } from '../../src/store/store.js';

const T0 = 1_796_119_980_000; // a whole minute
const S0 = T0 / 1000;
const move = (name: string | null, second: number, from: string, to: string, event: string, count: number): TransitionGroup => ({ second, from, to, event, candidate: null, name, marked: false, count });
const done = (name: string, second: number, count: number) => move(name, second, 'processing', 'completed', 'job.complete', count);
const notPaused = { all: false, names: [] };

describe('counts and pauses per name', () => {
  it('turns the counts per state into one row per name, sorted, with its pause; a name no prototype holds is a name like any other', () => {
    const stats = createNameStats(() => T0);
    // As counts arrive from JSON: `__proto__` an own key (an object literal would set the prototype instead).
    // Its state has a name of its own: on a plain {}, the count would land on Object.prototype under it.
    const held = JSON.parse('{ "__proto__": 2 }') as Record<string, number>;
    const v = stats.view({ pending: { send: 3, audit: 1 }, held, dead: { send: 1 }, quarantined: { audit: 4 } }, { all: false, names: ['audit', 'idle'] });
    expect(v.rows.map((r) => r.name)).toEqual(['__proto__', 'audit', 'idle', 'send']);
    const row = (name: string) => v.rows.find((r) => r.name === name)!;
    expect({ ...row('send').counts }).toEqual({ pending: 3, dead: 1 });
    expect({ ...row('__proto__').counts }).toEqual({ held: 2 });
    expect(({} as Record<string, unknown>).held).toBeUndefined();
    expect({ ...row('audit').counts }).toEqual({ pending: 1, quarantined: 4 });
    // A paused name with no jobs still has its row: it is what an operator looks for.
    expect(row('idle')).toMatchObject({ paused: true, counts: {} });
    expect(row('audit').paused).toBe(true);
    expect(row('send').paused).toBe(false);
    expect(v.other).toBeNull();
    expect(v.paused).toEqual({ all: false, names: ['audit', 'idle'] });
  });
});

describe('throughput per name', () => {
  it('counts completed and failed attempts per minute of the hour, and their rate over the last five minutes', () => {
    const clock = createVirtualClock(T0 + 30_000);
    const stats = createNameStats(clock.now);
    stats.add({
      transitions: [
        done('send', S0, 9),
        done('send', S0 - 200, 9),
        done('send', S0 - 600, 5), // ten minutes ago: in the hour, not in the rate
        move('send', S0 - 10, 'processing', 'failed', 'job.fail', 2),
        move('send', S0 - 10, 'processing', 'dead', 'job.fail', 1),
        move('send', S0 - 20, 'processing', 'pending', 'job.expire', 3),
        move('send', S0, 'pending', 'processing', 'job.claim', 40), // a start is no attempt's end
        move('send', S0, 'dead', 'pending', 'job.retry', 7),
        done('other-name', S0, 4),
        move(null, S0, 'processing', 'completed', 'job.complete', 50), // a job gone since: no name to count it for
      ],
      latency: [],
    });
    const v = stats.view({ processing: { send: 1 } }, notPaused);
    const send = v.rows.find((r) => r.name === 'send')!;
    // The window covers 4 whole minutes and the 30 s of this one.
    expect(send.throughput).toEqual({ completed: 4, failed: 1.33 });
    expect(v.perMinute).toEqual({ step: MINUTE_MS, end: T0 + MINUTE_MS });
    expect(send.perMinute.completed).toHaveLength(60);
    expect(send.perMinute.completed.at(-1)).toBe(9);
    expect(send.perMinute.completed.at(-5)).toBe(9); // 200 s before this minute: in the window's first
    expect(send.perMinute.completed.at(-11)).toBe(5);
    expect(send.perMinute.failed.at(-2)).toBe(6);
    expect(send.perMinute.completed.reduce((a, b) => a + b, 0)).toBe(23);
    expect(v.rows.find((r) => r.name === 'other-name')!.throughput.completed).toBe(0.89);
    expect(v.rows.map((r) => r.name)).toEqual(['other-name', 'send']);
  });

  it('lets minutes leave the rate after five minutes and the sparkline after an hour', async () => {
    const clock = createVirtualClock(T0);
    const stats = createNameStats(clock.now);
    stats.add({ transitions: [done('send', S0, 8)], latency: [] });
    const rate = () => stats.view({ pending: { send: 1 } }, notPaused).rows[0]!;
    expect(rate().throughput.completed).toBe(2); // 8 over the 4 minutes the window covers so far
    await clock.advance(5 * MINUTE_MS);
    expect(rate().throughput.completed).toBe(0);
    expect(rate().perMinute.completed.at(-6)).toBe(8);
    await clock.advance(HOUR_MS - 5 * MINUTE_MS);
    expect(rate().perMinute.completed.every((n) => n === 0)).toBe(true);
  });
});

describe('waits per name', () => {
  it('reads p50 and p95 of the claims of the last five minutes, each name apart', async () => {
    const clock = createVirtualClock(T0 + 10_000);
    const stats = createNameStats(clock.now);
    const latency = [];
    for (let ms = 1; ms <= 100; ms++) latency.push({ at: T0 - (ms % 4) * MINUTE_MS, ms: ms * 10, name: 'send' });
    latency.push({ at: T0 - 6 * MINUTE_MS, ms: 1_000_000, name: 'send' }); // before the window
    latency.push({ at: T0, ms: 7, name: 'audit' }, { at: T0, ms: 7, name: 'audit' });
    latency.push({ at: T0, ms: 99_999 }); // a sample without a name (a batch built by hand) is nobody's
    stats.add({ transitions: [], latency });
    const v = stats.view({ pending: { send: 1, audit: 1 } }, notPaused);
    const wait = (name: string) => v.rows.find((r) => r.name === name)!.wait;
    const near = (got: number | null, exact: number) => {
      expect(got).not.toBeNull();
      expect(got!).toBeGreaterThanOrEqual(Math.floor(exact / Math.sqrt(GROWTH)) - 1);
      expect(got!).toBeLessThanOrEqual(Math.ceil(exact * Math.sqrt(GROWTH)) + 1);
    };
    near(wait('send').p50, 500);
    near(wait('send').p95, 950);
    near(wait('audit').p50, 7);
    near(wait('audit').p95, 7);
    await clock.advance(5 * MINUTE_MS);
    expect(stats.view({ pending: { send: 1 } }, notPaused).rows.find((r) => r.name === 'send')!.wait).toEqual({ p50: null, p95: null });
  });
});

describe('the cap on names', () => {
  it('folds the names past the cap into one other row, and gives a slot back when a name has nothing left', async () => {
    const clock = createVirtualClock(T0);
    const stats = createNameStats(clock.now, { maxNames: 2 });
    stats.add({ transitions: [done('a', S0, 4), done('b', S0, 4), done('c', S0, 8), done('d', S0, 12)], latency: [{ at: T0, ms: 30, name: 'd' }] });
    expect(stats.tracked()).toBe(2);
    const v = stats.view({ pending: { a: 1, c: 2, d: 3 }, dead: { d: 1, e: 5 } }, notPaused);
    expect(v.rows.map((r) => r.name)).toEqual(['a', 'b']);
    expect(v.other).not.toBeNull();
    expect(v.other!.names).toBe(3);
    expect({ ...v.other!.counts }).toEqual({ pending: 5, dead: 6 });
    expect(v.other!.throughput.completed).toBe(5); // (8 + 12) over 4 minutes
    expect(v.other!.wait.p50).toBeGreaterThan(25);
    expect(v.rows[0]!.throughput.completed).toBe(1);

    // An hour on, `b` has no jobs and nothing in the hour: its slot goes to a name of now.
    await clock.advance(HOUR_MS);
    const later = stats.view({ pending: { a: 1, c: 2 } }, notPaused);
    expect(later.rows.map((r) => r.name)).toEqual(['a', 'c']);
    expect(later.other).toBeNull();
    expect(stats.tracked()).toBe(2);
  });

  it('forgets every name on clear', () => {
    const stats = createNameStats(() => T0);
    stats.add({ transitions: [done('a', S0, 1)], latency: [] });
    stats.clear();
    expect(stats.tracked()).toBe(0);
    expect(stats.view({}, notPaused).rows).toEqual([]);
  });
});
