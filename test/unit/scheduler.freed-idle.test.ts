/**
 * A worker that goes idle after the last pass found nothing more to claim
 * starts no pass: no claim could find more, and new work comes with a
 * trigger of its own. Each job of an idle queue used to cost a second claim
 * and a due-time read when it finished, and a job enqueued meanwhile waited
 * for that pass before its own claim went out. A loop whose slots were all
 * busy still comes back when one frees (scheduler.no-lost-wakeup.test.ts).
 */
import { Subject } from 'rxjs';
import { expect, it } from 'vitest';
import { createScheduler } from '../../src/engine/claim/scheduler.js';
import { sleep } from '../../src/lib/clock.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';

it('starts no pass when a worker frees after the last claim came back short', async () => {
  const clock = createVirtualClock(0);
  const freed$ = new Subject<void>();
  let pending = 1;
  let free = 2;
  let claims = 0;
  let dueReads = 0;
  const scheduler = createScheduler({
    clock,
    freeSlots: () => free,
    async claim(limit) {
      claims++;
      await sleep(clock, 1);
      const n = Math.min(limit, pending);
      pending -= n;
      free -= n;
      // Each job runs 5 ms, then frees its worker.
      for (let i = 0; i < n; i++) {
        void sleep(clock, 5).then(() => {
          free++;
          freed$.next();
        });
      }
      return n;
    },
    promoteDue: async () => undefined,
    async nextDueAt() {
      dueReads++;
      return null;
    },
    externalChange: () => false,
    freed$,
    onError: (err) => {
      throw err;
    },
    pollMs: 60_000,
    idleMinMs: 10_000_000,
    idleMaxMs: 10_000_000,
  });
  scheduler.start();
  await clock.advance(20);
  // One claim brought the one job (fewer than the two free slots: nothing more), then the due-time read.
  expect([claims, dueReads, pending, free]).toEqual([1, 1, 0, 2]);
  // New work still comes in by its trigger.
  pending = 1;
  scheduler.wake();
  await clock.advance(20);
  expect([claims, dueReads, pending, free]).toEqual([2, 2, 0, 2]);
  const stopped = scheduler.stop();
  await clock.advance(5);
  await stopped;
});
