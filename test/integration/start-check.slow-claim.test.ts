/**
 * A claim's jobs are held from its commit, at the end of its statement: a
 * claim that took long (a busy database answers a claim of a thousand jobs
 * in tens of ms) brings jobs whose leases are fresh, and they start without
 * a read (start-check.ts). Timed from when the claim was sent, every job of
 * a slow claim was read again before it started: a second read of each job
 * of a drain, for nothing.
 */
import { expect, it } from 'vitest';
import { createVirtualClock, defineJob } from '../../src/index.js';
import { START_CHECK_AFTER_MS } from '../../src/engine/claim/start-check.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { overrideStore } from '../helpers/store-override.js';
import { waitFor } from '../helpers/wait.js';

const fx = useQueues();

it('starts the jobs of a claim that took longer than the start check window without reading them again', async () => {
  const clock = createVirtualClock(Date.parse('2026-06-01T00:00:00Z'));
  let heldReads = 0;
  let claims = 0;
  const store = overrideStore(fx.store(), {
    held: (held) => (leases) => {
      heldReads++;
      return held(leases);
    },
    claim: (claim) => async (req) => {
      const result = await claim(req);
      // The claim's answer arrives well past the window, counted from when it was sent.
      claims++;
      await clock.advance(START_CHECK_AFTER_MS + 20);
      return result;
    },
  });
  const ran: number[] = [];
  const q = fx.open({ clock, store, concurrency: 2, prefetch: 8, jobs: [defineJob({ name: 'j', handler: (p: { i: number }) => void ran.push(p.i) })] });
  await q.enqueueMany(Array.from({ length: 6 }, (_, i) => ({ name: 'j', payload: { i } })));
  await q.start();
  await waitFor(() => ran.length === 6);
  expect(claims).toBeGreaterThan(0);
  expect(heldReads).toBe(0);
  expect(ran.sort()).toEqual([0, 1, 2, 3, 4, 5]);
});
