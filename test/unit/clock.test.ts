/** clampDelay and systemClock (no timer overflow), and every() (no overlapping runs, stops when told). */
import { afterEach, describe, expect, it } from 'vitest';
import { afterDelay, clampDelay, every, MAX_TIMER_MS, sleep, systemClock } from '../../src/lib/clock.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';

describe('clampDelay', () => {
  it('keeps a delay a Node timer can hold', () => {
    expect(MAX_TIMER_MS).toBe(2 ** 31 - 1);
    expect(clampDelay(1)).toBe(1);
    expect(clampDelay(1.5)).toBe(1.5);
    expect(clampDelay(MAX_TIMER_MS)).toBe(MAX_TIMER_MS);
  });

  it('clamps a longer delay to 2^31−1 ms, and negative or NaN delays to 0', () => {
    expect(clampDelay(MAX_TIMER_MS + 1)).toBe(MAX_TIMER_MS);
    expect(clampDelay(30 * 24 * 3600 * 1000)).toBe(MAX_TIMER_MS); // 30 days
    expect(clampDelay(Number.POSITIVE_INFINITY)).toBe(MAX_TIMER_MS);
    expect(clampDelay(0)).toBe(0);
    expect(clampDelay(-5)).toBe(0);
    expect(clampDelay(Number.NEGATIVE_INFINITY)).toBe(0);
    expect(clampDelay(Number.NaN)).toBe(0);
  });
});

describe('systemClock', () => {
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  afterEach(() => {
    process.off('warning', onWarning);
    warnings.length = 0;
  });

  it('holds a timer longer than 2^31−1 ms without a TimeoutOverflowWarning, instead of firing it at once', async () => {
    process.on('warning', onWarning);
    let fired = 0;
    const handles = [2 ** 31, 30 * 24 * 3600 * 1000, Number.POSITIVE_INFINITY].map((ms) => systemClock.setTimeout(() => fired++, ms));
    try {
      // An overflowing Node timer fires after 1 ms, and its warning is emitted on a later tick: wait past both.
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(warnings.filter((w) => w.name === 'TimeoutOverflowWarning')).toEqual([]);
      expect(fired).toBe(0);
    } finally {
      for (const h of handles) systemClock.clearTimeout(h);
    }
  });

  it('tells the time and fires and clears real timers', async () => {
    const before = Date.now();
    expect(systemClock.now()).toBeGreaterThanOrEqual(before);
    expect(systemClock.now()).toBeLessThanOrEqual(Date.now());
    const fired: string[] = [];
    const cleared = systemClock.setTimeout(() => fired.push('cleared'), 1);
    systemClock.clearTimeout(cleared);
    await sleep(systemClock, 10);
    systemClock.setTimeout(() => fired.push('kept'), 0);
    await sleep(systemClock, 10);
    expect(fired).toEqual(['kept']);
  });
});

describe('every', () => {
  it('runs every `ms` after the previous run settled, never two at once', async () => {
    const clock = createVirtualClock(0);
    const starts: number[] = [];
    let running = 0;
    let overlap = 0;
    const stop = every(
      clock,
      10,
      async () => {
        starts.push(clock.now());
        if (++running > 1) overlap++;
        await sleep(clock, 25); // each run takes longer than the interval
        running--;
      },
      (err) => {
        throw err;
      },
    );
    await clock.advance(200);
    stop();
    expect(overlap).toBe(0);
    // Armed when the previous run ended: 10, then 10 + 25 + 10, …
    expect(starts).toEqual([10, 45, 80, 115, 150, 185]);
  });

  it('reports a failed run and keeps going', async () => {
    const clock = createVirtualClock(0);
    const errors: unknown[] = [];
    let runs = 0;
    const stop = every(
      clock,
      10,
      async () => {
        runs++;
        if (runs === 2) throw new Error('boom');
      },
      (err) => errors.push(err),
    );
    await clock.advance(40);
    stop();
    expect(runs).toBe(4);
    expect(errors).toEqual([new Error('boom')]);
  });

  it('stops when told: before the first run, and from inside a run (no next run is armed)', async () => {
    const clock = createVirtualClock(0);
    let runs = 0;
    const stopBefore = every(clock, 10, async () => void runs++, () => {});
    expect(clock.pending()).toBe(1);
    stopBefore();
    expect(clock.pending()).toBe(0);
    await clock.advance(100);
    expect(runs).toBe(0);

    let inner = 0;
    const stopInside: Array<() => void> = [];
    stopInside.push(
      every(
        clock,
        10,
        async () => {
          inner++;
          await sleep(clock, 5);
          if (inner === 2) stopInside[0]!();
        },
        () => {},
      ),
    );
    await clock.advance(1_000);
    expect(inner).toBe(2);
    expect(clock.pending()).toBe(0);
  });

  it('stopped while a run is in flight: that run ends, none follows', async () => {
    const clock = createVirtualClock(0);
    let runs = 0;
    let ended = 0;
    const stop = every(
      clock,
      10,
      async () => {
        runs++;
        await sleep(clock, 20);
        ended++;
      },
      () => {},
    );
    await clock.advance(15); // the first run started at 10 and waits until 30
    stop();
    await clock.advance(1_000);
    expect({ runs, ended, pending: clock.pending() }).toEqual({ runs: 1, ended: 1, pending: 0 });
  });
});

describe('afterDelay', () => {
  const DAY = 24 * 3600_000;

  it('waits a delay longer than one timer holds in full (a plain timer of the clock fires at ~24.8 days)', async () => {
    const clock = createVirtualClock(0);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push(`timer@${clock.now()}`), 30 * DAY);
    afterDelay(clock, 30 * DAY, () => fired.push(`after@${clock.now()}`));
    await clock.advance(25 * DAY);
    expect(fired).toEqual([`timer@${MAX_TIMER_MS}`]);
    await clock.advance(5 * DAY - 1);
    expect(fired).toHaveLength(1);
    await clock.advance(1);
    expect(fired).toEqual([`timer@${MAX_TIMER_MS}`, `after@${30 * DAY}`]);
  });

  it('fires a short delay once, at its time, and never once cancelled (before its first bound or after)', async () => {
    const clock = createVirtualClock(0);
    let short = 0;
    afterDelay(clock, 10, () => short++);
    const cancelEarly = afterDelay(clock, 60 * DAY, () => short--);
    const cancelLate = afterDelay(clock, 60 * DAY, () => short--);
    await clock.advance(10);
    expect(short).toBe(1);
    cancelEarly();
    await clock.advance(30 * DAY);
    cancelLate();
    await clock.advance(40 * DAY);
    expect(short).toBe(1);
    expect(clock.pending()).toBe(0);
  });
});
