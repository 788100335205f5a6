/**
 * Slot computation (src/engine/cron.ts) on plain numbers: the missed-slot
 * policies, seconds-level expressions, and the two days a year Europe/Berlin
 * changes its clocks (2026-03-29 02:00 → 03:00, 2026-10-25 03:00 → 02:00).
 */
import { describe, expect, it } from 'vitest';
import { checkCron, MISSED_CAP, nextCronSlot as nextSlot, slotKey, cronSlotsBetween as slotsBetween, type CronSpec, type FiringInput } from '../../src/engine/core/cron.js';
import { planRepeat } from '../../src/engine/core/repeat.js';

/** A cron schedule with no bounds, as planRepeat takes it. */
const planFiring = (spec: CronSpec, input: FiringInput) => planRepeat({ cron: spec.cron, tz: spec.tz ?? null, every: null, startAt: null, endAt: null, immediately: false, createdAt: 0 }, input);
import { ValidationError } from '../../src/errors.js';

const t = (iso: string) => Date.parse(iso);
const iso = (slots: number[]) => slots.map((s) => new Date(s).toISOString());
const berlin = (cron: string) => ({ cron, tz: 'Europe/Berlin' });

describe('slots of an expression', () => {
  it('a seconds-level expression (six fields) fires on its seconds; a slot exactly at now is due', () => {
    const spec = { cron: '*/2 * * * * *', tz: 'UTC' };
    expect(iso(slotsBetween(spec, t('2026-06-01T00:00:00Z'), t('2026-06-01T00:00:06Z'), 100))).toEqual([
      '2026-06-01T00:00:02.000Z',
      '2026-06-01T00:00:04.000Z',
      '2026-06-01T00:00:06.000Z',
    ]);
    expect(nextSlot(spec, t('2026-06-01T00:00:06Z'))).toBe(t('2026-06-01T00:00:08Z'));
    expect(nextSlot(spec, t('2026-06-01T00:00:05.999Z'))).toBe(t('2026-06-01T00:00:06Z'));
  });

  it('past the cap, the latest slots are kept', () => {
    const spec = { cron: '* * * * * *', tz: 'UTC' };
    const slots = slotsBetween(spec, t('2026-06-01T00:00:00Z'), t('2026-06-01T01:00:00Z'), 10);
    expect(iso(slots)).toEqual(Array.from({ length: 10 }, (_, i) => new Date(t('2026-06-01T00:59:51Z') + i * 1000).toISOString()));
  });

  it('a slot key names the schedule and the slot', () => {
    expect(slotKey('report', 1_780_000_000_000)).toBe('cron:report:1780000000000');
  });
});

describe('daylight saving time in Europe/Berlin', () => {
  it('spring forward: 02:30 (which does not exist that night) runs once, at 03:00 CEST', () => {
    const slots = slotsBetween(berlin('30 2 * * *'), t('2026-03-27T12:00:00Z'), t('2026-03-31T12:00:00Z'), 100);
    // 02:30 CET = 01:30Z; on the 29th the first wall-clock time after the gap, 03:00 CEST = 01:00Z; then 02:30 CEST = 00:30Z.
    expect(iso(slots)).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z', '2026-03-31T00:30:00.000Z']);
  });

  it('spring forward: an hourly schedule runs 23 times that day, once per real hour, none twice', () => {
    const slots = slotsBetween(berlin('0 * * * *'), t('2026-03-28T22:59:59Z'), t('2026-03-29T21:59:59Z'), 100);
    expect(slots).toHaveLength(23);
    expect(new Set(slots).size).toBe(23);
    for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!).toBe(3_600_000);
    // 01:00 CET then 03:00 CEST: one real hour apart (02:00 never happens on the wall clock).
    expect(iso(slots.slice(1, 3))).toEqual(['2026-03-29T00:00:00.000Z', '2026-03-29T01:00:00.000Z']);
  });

  it('fall back: 02:30 (which happens twice that night) runs once, at its first occurrence (CEST)', () => {
    const slots = slotsBetween(berlin('30 2 * * *'), t('2026-10-23T12:00:00Z'), t('2026-10-27T12:00:00Z'), 100);
    expect(iso(slots)).toEqual(['2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z', '2026-10-27T01:30:00.000Z']);
  });

  it('fall back: an hourly schedule runs 25 times that day, once per real hour (02:00 CEST and 02:00 CET)', () => {
    const slots = slotsBetween(berlin('0 * * * *'), t('2026-10-24T21:59:59Z'), t('2026-10-25T22:59:59Z'), 100);
    expect(slots).toHaveLength(25);
    for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!).toBe(3_600_000);
    expect(iso(slots.slice(2, 4))).toEqual(['2026-10-25T00:00:00.000Z', '2026-10-25T01:00:00.000Z']);
  });
});

describe('missed slots', () => {
  // An hourly schedule last fired at 01:00; the process that starts at 05:30 finds 02:00 … 05:00 missed.
  const spec = { cron: '0 * * * *', tz: 'UTC' };
  const after = t('2026-06-01T01:00:00Z');
  const runningSince = t('2026-06-01T05:30:00Z');
  const plan = (missed: 'skip' | 'one' | 'all', now = runningSince) => planFiring(spec, { after, now, runningSince, missed });

  it("'skip' fires none of them, and marks the latest as handled", () => {
    expect(plan('skip')).toEqual({ fire: [], handled: t('2026-06-01T05:00:00Z') });
  });

  it("'one' fires the latest missed slot only", () => {
    expect(iso(plan('one').fire)).toEqual(['2026-06-01T05:00:00.000Z']);
  });

  it("'all' fires every missed slot", () => {
    expect(iso(plan('all').fire)).toEqual(['2026-06-01T02:00:00.000Z', '2026-06-01T03:00:00.000Z', '2026-06-01T04:00:00.000Z', '2026-06-01T05:00:00.000Z']);
  });

  it('slots due since the process started are fired whatever the policy, late or not', () => {
    for (const missed of ['skip', 'one', 'all'] as const) {
      const p = planFiring(spec, { after: t('2026-06-01T05:00:00Z'), now: t('2026-06-01T07:10:00Z'), runningSince, missed });
      expect(iso(p.fire)).toEqual(['2026-06-01T06:00:00.000Z', '2026-06-01T07:00:00.000Z']);
    }
    // Under 'skip', the missed ones still go.
    const p = planFiring(spec, { after, now: t('2026-06-01T06:00:00Z'), runningSince, missed: 'skip' });
    expect(iso(p.fire)).toEqual(['2026-06-01T06:00:00.000Z']);
  });

  it(`'all' after a long downtime fires the latest ${MISSED_CAP} slots`, () => {
    const everySecond = { cron: '* * * * * *', tz: 'UTC' };
    const since = t('2026-06-01T12:00:00Z');
    const p = planFiring(everySecond, { after: t('2026-06-01T00:00:00Z'), now: since, runningSince: since, missed: 'all' });
    expect(p.fire).toHaveLength(MISSED_CAP);
    expect(p.fire.at(-1)).toBe(since);
    expect(p.fire[0]).toBe(since - (MISSED_CAP - 1) * 1000);
    expect(p.handled).toBe(since);
  });

  it('nothing due: nothing fired, nothing marked', () => {
    expect(planFiring(spec, { after: t('2026-06-01T05:00:00Z'), now: t('2026-06-01T05:59:59Z'), runningSince, missed: 'all' })).toEqual({ fire: [], handled: null });
  });
});

describe('bad expressions', () => {
  const now = t('2026-06-01T00:00:00Z');
  const code = (f: () => void) => {
    try {
      f();
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      return (err as ValidationError).code;
    }
    return 'accepted';
  };
  it.each([
    ['not cron', undefined],
    ['* * * *', undefined],
    ['* * * * * * *', undefined],
    ['61 * * * *', undefined],
    ['0 0 30 2 *', undefined],
    ['', undefined],
    ['*/5 * * * *', 'Mars/Olympus_Mons'],
  ])('%s (tz %s) is refused with LJ_ERR_BAD_CRON', (cron, tz) => {
    expect(code(() => checkCron('schedule', { cron, tz }, now))).toBe('LJ_ERR_BAD_CRON');
  });
  it('five and six fields and a known zone pass', () => {
    expect(code(() => checkCron('schedule', { cron: '*/5 * * * *', tz: 'Europe/Berlin' }, now))).toBe('accepted');
    expect(code(() => checkCron('schedule', { cron: '*/10 * * * * *' }, now))).toBe('accepted');
  });
});
