/**
 * When an interval or a bounded cron schedule fires (src/engine/core/repeat.ts),
 * on plain numbers: an interval counts from its start date or its creation,
 * `immediately` adds the first slot at once, an end date stops it, and a
 * long downtime keeps only the latest slots.
 */
import { describe, expect, it } from 'vitest';
import { nextRepeatSlot, planRepeat, repeatSlotsBetween, type Repeat } from '../../src/engine/core/repeat.js';

const T0 = Date.parse('2026-06-01T00:00:00Z');
const every = (ms: number, more: Partial<Repeat> = {}): Repeat => ({ cron: null, tz: null, every: ms, startAt: null, endAt: null, immediately: false, createdAt: T0, ...more });
const cron = (expr: string, more: Partial<Repeat> = {}): Repeat => ({ cron: expr, tz: 'UTC', every: null, startAt: null, endAt: null, immediately: false, createdAt: T0, ...more });
const s = (n: number) => T0 + n * 1000;

describe('an interval', () => {
  it('fires one interval after its creation, then every interval; with immediately, at its creation too', () => {
    expect(repeatSlotsBetween(every(2000), T0 - 1, s(7), 100)).toEqual([s(2), s(4), s(6)]);
    expect(repeatSlotsBetween(every(2000, { immediately: true }), T0 - 1, s(5), 100)).toEqual([s(0), s(2), s(4)]);
    expect(nextRepeatSlot(every(2000), s(4))).toBe(s(6));
    expect(nextRepeatSlot(every(2000), s(4) - 1)).toBe(s(4));
  });

  it('counts from its start date, which is its first slot; an end date ends it', () => {
    const r = every(3000, { startAt: s(10), endAt: s(19) });
    expect(repeatSlotsBetween(r, T0 - 1, s(30), 100)).toEqual([s(10), s(13), s(16), s(19)]);
    expect(nextRepeatSlot(r, s(19))).toBeNull();
    expect(nextRepeatSlot(r, T0)).toBe(s(10));
  });

  it('after a long downtime keeps the latest slots only', () => {
    const slots = repeatSlotsBetween(every(1000), T0, s(86_400), 5);
    expect(slots).toEqual([s(86_396), s(86_397), s(86_398), s(86_399), s(86_400)]);
  });

  it('goes through the missed-slot policies as a cron schedule does', () => {
    const plan = (missed: 'skip' | 'one' | 'all') => planRepeat(every(1000), { after: T0, now: s(5), runningSince: s(3) + 500, missed });
    expect(plan('skip')).toEqual({ fire: [s(4), s(5)], handled: s(5) });
    expect(plan('one')).toEqual({ fire: [s(3), s(4), s(5)], handled: s(5) });
    expect(plan('all')).toEqual({ fire: [s(1), s(2), s(3), s(4), s(5)], handled: s(5) });
  });
});

describe('a cron expression with bounds', () => {
  it('fires from its start date, and with immediately once at it, up to its end date', () => {
    const r = cron('*/10 * * * * *', { startAt: s(15), endAt: s(45), immediately: true });
    expect(repeatSlotsBetween(r, T0 - 1, s(60), 100)).toEqual([s(15), s(20), s(30), s(40)]);
    expect(nextRepeatSlot(r, T0)).toBe(s(15));
    expect(nextRepeatSlot(r, s(15))).toBe(s(20));
    expect(nextRepeatSlot(r, s(40))).toBeNull();
  });

  it('with immediately and no start date, fires at its creation, once', () => {
    const r = cron('0 * * * *', { immediately: true });
    expect(repeatSlotsBetween(r, T0 - 1, T0 + 3_600_000, 100)).toEqual([T0, T0 + 3_600_000]);
    expect(repeatSlotsBetween(r, T0, T0 + 3_600_000, 100)).toEqual([T0 + 3_600_000]);
  });
});
