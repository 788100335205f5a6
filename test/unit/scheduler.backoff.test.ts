/**
 * A claim loop whose store keeps failing (a database server restarting)
 * backs off: the pause between passes doubles up to the idle maximum, each
 * failure reaches onError with the pause that follows it, and the first pass
 * that gets through reports the recovery and claims at once. On a virtual
 * clock: the test reads the times of the tries, it does not wait for them.
 */
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createScheduler } from '../../src/engine/claim/scheduler.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';

describe('claim loop on a failing store', () => {
  it('backs off, doubling up to the idle maximum, then recovers and claims', async () => {
    const clock = createVirtualClock(0);
    let down = true;
    const tries: number[] = [];
    const errors: Array<{ at: number; retryInMs: number }> = [];
    let recovered = 0;
    let claimed = 0;
    const scheduler = createScheduler({
      clock,
      freeSlots: () => 4,
      claim: async (limit) => {
        tries.push(clock.now());
        if (down) throw new Error('connect ECONNREFUSED');
        claimed += limit;
        return 0; // nothing more: the loop goes idle
      },
      promoteDue: async () => {},
      nextDueAt: async () => null,
      externalChange: () => false,
      freed$: new Subject<void>(),
      onError: (_err, retryInMs) => errors.push({ at: clock.now(), retryInMs }),
      onRecovered: () => recovered++,
      pollMs: 60_000,
      idleMinMs: 250,
      idleMaxMs: 5000,
    });
    scheduler.start();
    await clock.advance(20_000);
    // 250, 500, 1000, 2000, 4000, then capped at 5000.
    expect(errors.map((e) => e.retryInMs)).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000].slice(0, errors.length));
    expect(errors.length).toBeGreaterThanOrEqual(6);
    // Each try comes only once the pause announced by the failure before it has passed.
    for (let i = 1; i < tries.length; i++) expect(tries[i]! - tries[i - 1]!).toBeGreaterThanOrEqual(errors[i - 1]!.retryInMs);
    expect(recovered).toBe(0);

    down = false;
    const failedTries = tries.length;
    await clock.advance(5000);
    expect(tries.length).toBe(failedTries + 1);
    expect(recovered).toBe(1);
    expect(claimed).toBe(4);
    await scheduler.stop();
  });
});
