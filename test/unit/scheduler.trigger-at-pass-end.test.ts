/**
 * A trigger that arrives just as a pass ends (the pass's promise has settled,
 * but exhaustMap has not yet heard that its inner stream completed) is
 * dropped by exhaustMap. Its `dirty` mark must still lead to another pass.
 */
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createScheduler } from '../../src/engine/claim/scheduler.js';
import { systemClock } from '../../src/lib/clock.js';
import { waitFor } from '../helpers/wait.js';

/** Resolves after `depth` turns of the promise job queue. */
function microtasks(depth: number): Promise<void> {
  let p = Promise.resolve();
  for (let i = 0; i < depth; i++) p = p.then(() => undefined);
  return p;
}

async function claimsAfterLateWake(depth: number): Promise<number> {
  let ready = 0;
  let claims = 0;
  let armed = false;
  const scheduler = createScheduler({
    clock: systemClock,
    freeSlots: () => 4,
    async claim(limit) {
      claims++;
      const n = Math.min(limit, ready);
      ready -= n;
      return n;
    },
    promoteDue: async () => {},
    nextDueAt: async () => {
      // The first pass ends here: a job arrives a few promise jobs later, from a microtask.
      if (!armed) {
        armed = true;
        void microtasks(depth).then(() => {
          ready = 1;
          scheduler.wake();
        });
      }
      return null;
    },
    externalChange: () => false,
    freed$: new Subject<void>(),
    onError: (err) => {
      throw err;
    },
    // No poll can rescue a dropped trigger.
    pollMs: 60_000,
    idleMinMs: 10_000_000,
    idleMaxMs: 10_000_000,
  });
  scheduler.start();
  try {
    await waitFor(() => ready === 0 && armed, 2000).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    return claims;
  } finally {
    await scheduler.stop();
  }
}

describe('scheduler: a trigger at the end of a pass', () => {
  it('is never lost, whichever promise job it arrives in', async () => {
    for (let depth = 0; depth <= 8; depth++) {
      const claims = await claimsAfterLateWake(depth);
      // One claim by the first pass, and at least one more for the job that arrived.
      expect(claims, `wake ${depth} promise jobs after the pass read nextDueAt`).toBeGreaterThanOrEqual(2);
    }
  });
});
