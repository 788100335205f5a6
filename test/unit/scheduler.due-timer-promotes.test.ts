/**
 * A job in a delayed state (a retry, a sleeping job) is promoted when its
 * time comes, or at the latest by the next pass after it, even when an
 * earlier pass promoted (finding nothing due yet) and then stopped on a full
 * set of slots, so it never read the next due time again. Before, such a job
 * waited for a timer one millisecond past the pass that found it due: late,
 * and other processes could not claim it meanwhile.
 *
 * The clock is virtual and moved exactly to each moment, never past it: a
 * promotion that comes only "a moment later" does not come at all.
 */
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createScheduler, PROMOTE_RECHECK_MS } from '../../src/engine/claim/scheduler.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';

type State = 'absent' | 'pending' | 'failed' | 'running';

/**
 * A scheduler over two jobs: one ready once the test makes it so, and one in a delayed state due at 100,
 * which only the store knows of (no noteDue). `backlog`: an endless backlog instead, every claim filling
 * every free slot (4 at first), and no idle poll.
 */
function setUp(o: { backlog?: boolean } = {}) {
  const clock = createVirtualClock(0);
  const freed$ = new Subject<void>();
  const slots = { free: o.backlog ? 4 : 1 };
  // A job ready now (once it exists), and one in a delayed state due at 100.
  const ready = { state: 'absent' as State };
  const delayed = { state: 'failed' as State, dueAt: 100 };
  const promotedAt: number[] = [];
  const errors: unknown[] = [];
  let claimFailures = 0;
  const scheduler = createScheduler({
    clock,
    freeSlots: () => slots.free,
    claim: async (limit) => {
      if (claimFailures > 0) {
        claimFailures--;
        throw new Error('connect ECONNREFUSED');
      }
      if (o.backlog) {
        slots.free -= limit;
        return limit;
      }
      let n = 0;
      for (const job of [ready, delayed]) {
        if (n < limit && job.state === 'pending') {
          job.state = 'running';
          n++;
        }
      }
      slots.free -= n;
      return n;
    },
    promoteDue: async (now) => {
      if (delayed.state === 'failed' && delayed.dueAt <= now) {
        delayed.state = 'pending';
        promotedAt.push(now);
      }
    },
    nextDueAt: async () => (delayed.state === 'failed' ? delayed.dueAt : null),
    externalChange: () => false,
    freed$,
    onError: (err) => errors.push(err),
    pollMs: 60_000,
    idleMinMs: o.backlog ? 10_000_000 : 5,
    idleMaxMs: 10_000_000,
  });
  return {
    clock,
    scheduler,
    ready,
    delayed,
    promotedAt,
    errors,
    failNextClaim: () => (claimFailures = 1),
    free(n: number) {
      slots.free = n;
      freed$.next();
    },
    /** A worker finished: one more free slot. */
    freeOne() {
      slots.free++;
      freed$.next();
    },
  };
}

describe('promoting delayed jobs', () => {
  it('a slot that frees after the due time: the pass it starts promotes the job and claims it, at that moment', async () => {
    const t = setUp();
    t.scheduler.start();
    await t.clock.advance(0); // the first pass reads the due time (100) and arms for it
    // At 10 a job is ready and takes the only slot; the pass that claims it promotes first (nothing due yet).
    await t.clock.advance(10);
    t.ready.state = 'pending';
    t.scheduler.noteDue(10);
    await t.clock.advance(0);
    expect(t.ready.state).toBe('running');
    // The slot frees at 150, long after the due time: the job is promoted and claimed then.
    await t.clock.advance(140);
    t.free(1);
    await t.clock.advance(0);
    expect(t.delayed.state).toBe('running');
    expect(t.promotedAt.at(-1)).toBeLessThanOrEqual(150);
    await t.scheduler.stop();
  });

  it('the due timer: the pass it starts promotes, though a pass after a failed one promoted before and found every slot busy', async () => {
    const t = setUp();
    t.scheduler.start();
    await t.clock.advance(0); // armed for 100
    // At 10 a job is ready, and the claim fails once (a database restarting): the retry at 15 promotes, claims, and finds no slot left.
    await t.clock.advance(10);
    t.ready.state = 'pending';
    t.failNextClaim();
    t.scheduler.wake();
    await t.clock.advance(5);
    expect(t.errors).toHaveLength(1);
    expect(t.ready.state).toBe('running');
    expect(t.delayed.state).toBe('failed');
    // Every slot stays busy; the timer armed for 100 promotes the job at 100.
    await t.clock.advance(85);
    expect(t.promotedAt).toEqual([100]);
    expect(t.delayed.state).toBe('pending');
    await t.scheduler.stop();
  });
});

describe('promoting under a backlog that never runs out', () => {
  it('a job another process left in a delayed state is promoted within PROMOTE_RECHECK_MS of its time, though no pass runs out of jobs', async () => {
    const t = setUp({ backlog: true });
    t.scheduler.start();
    // The workers free a slot every 10 ms, and each pass fills it.
    for (let ms = 0; ms < 3000; ms += 10) {
      await t.clock.advance(10);
      t.freeOne();
    }
    await t.scheduler.stop();
    expect(t.errors).toEqual([]);
    expect(t.promotedAt).toHaveLength(1);
    expect(t.promotedAt[0]!).toBeLessThanOrEqual(100 + PROMOTE_RECHECK_MS);
  });
});
