/**
 * The store's change hints (`changed$`, a watch on the WAL for SQLite) reach
 * the claim loop only while it has run out of jobs: a loop that claimed a
 * full batch comes back by itself when a worker frees up, and a watch costs
 * every write to the file. A hint is confirmed by externalChange() like a
 * poll tick, and subscribing looks once at once.
 */
import { Observable, Subject, type Subscriber } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { createScheduler } from '../../src/engine/claim/scheduler.js';
import { waitFor } from '../helpers/wait.js';

/** A claim loop over `ready` jobs and `free` slots, with no poll: only the triggers under test run it. */
function harness(onClaim?: (nth: number) => void) {
  const freed$ = new Subject<void>();
  const state = { free: 4, ready: 0, claims: 0, external: false, hints: undefined as Subscriber<void> | undefined };
  const changed$ = new Observable<void>((subscriber) => {
    state.hints = subscriber;
    return () => (state.hints = undefined);
  });
  const scheduler = createScheduler({
    clock: systemClock,
    freeSlots: () => state.free,
    async claim(limit) {
      const n = Math.min(limit, state.ready);
      state.ready -= n;
      state.free -= n;
      state.claims++;
      onClaim?.(state.claims);
      return n;
    },
    promoteDue: async () => {},
    nextDueAt: async () => null,
    externalChange: () => {
      const was = state.external;
      state.external = false;
      return was;
    },
    changed$,
    freed$,
    onError: (err) => {
      throw err;
    },
    pollMs: 60_000,
    idleMinMs: 10_000_000,
    idleMaxMs: 10_000_000,
  });
  return { state, scheduler, freed$ };
}

/** Waits for `condition`, then lets the pass under way end before the test triggers the next one. */
async function until(condition: () => boolean): Promise<void> {
  await waitFor(condition);
  await new Promise((resolve) => setImmediate(resolve));
}

describe('scheduler: the store change hints', () => {
  it('listens only while out of jobs, and a confirmed hint starts a pass', async () => {
    const { state, scheduler, freed$ } = harness();
    state.ready = 10;
    scheduler.start(); // claims a full batch: busy, no hints wanted
    await until(() => state.claims === 1 && state.free === 0);
    expect(state.hints).toBeUndefined();

    state.free = 4;
    freed$.next(); // another full batch: still busy
    await until(() => state.claims === 2);
    expect(state.hints).toBeUndefined();

    state.free = 4;
    freed$.next(); // the last 2 jobs: out of jobs, hints wanted
    await until(() => state.hints !== undefined);
    expect(state.ready).toBe(0);

    // Another process committed: the hint, confirmed by externalChange(), starts a pass.
    state.free = 4;
    state.ready = 1;
    state.external = true;
    state.hints!.next();
    await until(() => state.ready === 0);
    expect(state.claims).toBe(4);

    // A hint externalChange() does not confirm (this process's own write) starts nothing.
    state.ready = 1;
    state.hints!.next();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(state.claims).toBe(4);

    // A full batch: busy again, the hints are dropped (the store closes its watch).
    state.free = 4;
    state.ready = 8;
    state.external = true;
    state.hints!.next();
    await until(() => state.claims === 5);
    expect(state.hints).toBeUndefined();

    await scheduler.stop();
  });

  it('looks once when it starts listening: a commit between the last claim and the subscription is not missed', async () => {
    const { state, scheduler } = harness((nth) => {
      if (nth !== 1) return;
      state.ready = 1; // another process commits just after the first claim read…
      state.external = true; // …and data_version shows it; no hint can come yet: nothing listens
    });
    scheduler.start();
    await until(() => state.claims === 2); // no poll and no hint: only the look on subscribing
    expect(state.ready).toBe(0);
    expect(state.hints).toBeDefined();
    await scheduler.stop();
    expect(state.hints).toBeUndefined(); // stop() ends the subscription
  });
});
