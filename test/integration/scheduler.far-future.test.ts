/**
 * A job due further ahead than a Node timer can hold (2^31−1 ms, ~24.8 days)
 * must not make the claim loop spin: the due timer is clamped, so an idle
 * queue stays idle and no TimeoutOverflowWarning is raised.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defineJob, type Store } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';

const fx = useQueues();
const warnings: Error[] = [];
const onWarning = (w: Error) => warnings.push(w);
afterEach(() => {
  process.off('warning', onWarning);
});

/** The test's store, counting how often the claim loop asks for the next due time. */
function countingStore(inner: Store): { store: Store; lookups: () => number } {
  let n = 0;
  const store: Store = {
    ...inner,
    nextDueAt: (names, states) => {
      n++;
      return inner.nextDueAt(names, states);
    },
  };
  return { store, lookups: () => n };
}

describe('a job due months ahead', () => {
  it('leaves an idle queue idle: no spinning claim loop, no timer overflow warning', async () => {
    process.on('warning', onWarning);
    const { store, lookups } = countingStore(fx.store());
    const q = fx.open({ store, pollInterval: 50, jobs: [defineJob({ name: 'monthly', handler: () => 'ok' })] });
    // The end of a month some 60 days ahead.
    await q.enqueue('monthly', {}, { runAt: Date.now() + 60 * 24 * 3600 * 1000 });
    await q.start();
    const before = lookups();
    await new Promise((resolve) => setTimeout(resolve, 500));
    // A clamped timer sleeps; an overflowing one fires at once and the loop asks again and again (thousands a second).
    expect(lookups() - before).toBeLessThan(10);
    expect(warnings.filter((w) => w.name === 'TimeoutOverflowWarning')).toEqual([]);
    expect((await q.listJobs({ state: 'pending' })).length).toBe(1);
  });
});
