/** The database's clock as a process reads it: the offset measured, its error as a range, a stepped clock followed. */
import { describe, expect, it } from 'vitest';
import { createSharedTime, REMEASURE_MS } from '../../src/engine/core/shared-time.js';
import type { Clock } from '../../src/lib/clock.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';

/** A host clock `skew` ms off a base virtual clock (not virtual itself: its offset is measured). */
const host = (base: ReturnType<typeof createVirtualClock>, skew: () => number): Clock => ({ now: () => base.now() + skew(), setTimeout: base.setTimeout, clearTimeout: base.clearTimeout });

describe('shared time', () => {
  it('takes a virtual clock as the database time as it is', async () => {
    const clock = createVirtualClock(1000);
    const time = createSharedTime(clock, { databaseNow: () => { throw new Error('never read'); } });
    expect(await time.now()).toEqual({ lo: 1000, hi: 1000 });
    expect(time.toLocal(5000)).toBe(5000);
  });

  it('corrects a host clock by the offset a synchronous read gives, exactly', async () => {
    const base = createVirtualClock(1_000_000);
    const time = createSharedTime(host(base, () => 700), { databaseNow: () => base.now() });
    expect(time.nowSync()).toEqual({ lo: 1_000_000, hi: 1_000_000 });
    // A time of the database's as the host's clock reads it: 700 ms later.
    expect(time.toLocal(1_002_000)).toBe(1_002_700);
  });

  it('gives a round trip read as a range that holds the database time, and follows a clock stepped since the last measure', async () => {
    const base = createVirtualClock(1_000_000);
    let skew = -250;
    const time = createSharedTime(host(base, () => skew), { databaseNow: async () => base.now() });
    const holds = (t: { lo: number; hi: number }) => t.lo <= base.now() && base.now() <= t.hi;
    const t = await time.now();
    expect(holds(t)).toBe(true);
    // A round trip's clock reads are whole milliseconds: a millisecond either side.
    expect(t.hi - t.lo).toBe(2);
    // The host's clock is stepped 500 ms: the measure in hand is off by that until the next.
    skew = 250;
    expect(holds(await time.now())).toBe(false);
    await base.advance(REMEASURE_MS);
    await time.now(); // serves the old measure, and measures again in the background
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(holds(await time.now())).toBe(true);
  });
});
