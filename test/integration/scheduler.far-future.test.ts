/**
 * A job due further ahead than a Node timer can hold (2^31−1 ms, ~24.8 days)
 * must not make the claim loop spin: the due timer is clamped, so an idle
 * queue stays idle and no TimeoutOverflowWarning is raised.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createVirtualClock, defineJob } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextPass } from '../helpers/wait.js';

const fx = useQueues();
const warnings: Error[] = [];
const onWarning = (w: Error) => warnings.push(w);
afterEach(() => {
  process.off('warning', onWarning);
});
const DAY = 24 * 3600 * 1000;
const monthly = defineJob({ name: 'monthly', handler: () => 'ok' });

describe('a job due months ahead', () => {
  it('arms a clamped timer: no TimeoutOverflowWarning once the loop has looked', async () => {
    process.on('warning', onWarning);
    const q = fx.open({ pollInterval: 50, jobs: [monthly] });
    // The end of a month some 60 days ahead.
    const dueAt = Date.now() + 60 * DAY;
    await q.enqueue('monthly', {}, { runAt: dueAt });
    const looked = nextPass(q.passes$);
    await q.start();
    // The pass read the due time and armed its timer (a warning would have been raised synchronously then).
    expect(await looked).toMatchObject({ claimed: 0, nextLookAt: new Date(dueAt) });
    await new Promise((resolve) => setImmediate(resolve)); // 'warning' is emitted on the next tick
    expect(warnings.filter((w) => w.name === 'TimeoutOverflowWarning')).toEqual([]);
  });

  it('leaves an idle queue idle: a clamped timer fires rarely, never in a loop', async () => {
    // Virtual time: a timer that overflowed would fire at once, pass after pass.
    const clock = createVirtualClock(Date.parse('2026-06-01T00:00:00Z'));
    const q = fx.open({ clock, pollInterval: 50, jobs: [monthly] });
    await q.enqueue('monthly', {}, { runAt: clock.now() + 60 * DAY });
    let passes = 0;
    const sub = q.passes$.subscribe(() => passes++);
    const first = nextPass(q.passes$);
    await q.start();
    await first;
    for (let i = 0; i < 50; i++) await clock.advance(10); // half a virtual second, each step's passes run to their end
    sub.unsubscribe();
    expect(passes).toBeLessThan(10);
    expect((await q.listJobs({ state: 'pending' })).length).toBe(1);
  });
});
