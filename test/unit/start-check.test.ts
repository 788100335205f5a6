/**
 * The one check before a claimed job starts (start-check.ts): a lease
 * confirmed lately starts unread, an older one is read first, a job moved on
 * meanwhile is dropped, and a rate-limited job past its start deadline is
 * late whether the deadline passed before the read or while it was on its way.
 */
import { describe, expect, it } from 'vitest';
import { createStartCheck, START_CHECK_AFTER_MS } from '../../src/engine/claim/start-check.js';
import { createVirtualClock } from '../../src/index.js';
import type { LeasedJob } from '../../src/store/store.js';

const T0 = 1_000_000;
const LEASE = 30_000;

function setup(answer: (reads: number) => boolean | Promise<boolean>) {
  const clock = createVirtualClock(T0);
  let reads = 0;
  const check = createStartCheck(
    {
      held: async (leases) => {
        reads++;
        const held = await answer(reads);
        return leases.map(() => held);
      },
    },
    clock,
    LEASE,
  );
  return { clock, check, reads: () => reads };
}

const job = (o: Partial<LeasedJob> = {}): LeasedJob => ({ id: 1, name: 'j', leaseToken: 'a', lockedUntil: T0 + LEASE, startBy: undefined, ...o }) as LeasedJob;

describe('the start check', () => {
  it('starts a job whose lease was confirmed lately without a read', async () => {
    const { check, reads } = setup(() => false);
    expect(await check(job())).toBe('start');
    expect(reads()).toBe(0);
  });

  it('reads a job that waited past the window: held starts, moved on is dropped', async () => {
    const held = setup(() => true);
    await held.clock.advance(START_CHECK_AFTER_MS);
    expect(await held.check(job())).toBe('start');
    expect(held.reads()).toBe(1);
    const moved = setup(() => false);
    await moved.clock.advance(START_CHECK_AFTER_MS);
    expect(await moved.check(job())).toBe('moved');
  });

  it('says late for a job past its start deadline, before any read', async () => {
    const { check, clock, reads } = setup(() => true);
    const late = job({ startBy: T0 + 40 });
    await clock.advance(39);
    expect(await check(late)).toBe('late');
    expect(reads()).toBe(0);
  });

  it('says late when the deadline passed while the read was on its way', async () => {
    let clockRef: ReturnType<typeof createVirtualClock> | undefined;
    const s = setup(async () => {
      await clockRef!.advance(30);
      return true;
    });
    clockRef = s.clock;
    await s.clock.advance(START_CHECK_AFTER_MS);
    expect(await s.check(job({ startBy: T0 + START_CHECK_AFTER_MS + 20 }))).toBe('late');
  });
});
