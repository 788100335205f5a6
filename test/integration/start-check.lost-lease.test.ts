/**
 * A buffer confirmation (start-check.ts `ahead`) answers "not held" for a
 * lease that ended while the read was on its way. By then the same job may
 * be back in the buffer under a new claim (a retry this process claimed
 * again): the answer is about the old token, and must not drop the new one.
 */
import { expect, it, onTestFinished } from 'vitest';
import { createVirtualClock, defineJob } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { overrideStore } from '../helpers/store-override.js';
import { waitFor } from '../helpers/wait.js';
import { START_CHECK_AFTER_MS } from '../../src/engine/claim/start-check.js';

const fx = useQueues();

it('a confirmation that answers for an old lease does not drop the job claimed again under a new one', async () => {
  const clock = createVirtualClock(Date.parse('2026-06-01T00:00:00Z'));
  // The first confirmation read goes to the database only when the test says so (a slow pool, a busy server).
  let sendRead!: () => void;
  const readGate = new Promise<void>((r) => (sendRead = r));
  let heldCalls = 0;
  const store = overrideStore(fx.store(), {
    held: (held) => async (leases) => {
      if (heldCalls++ === 0) await readGate;
      return held(leases);
    },
  });

  const gates = new Map<string, { open: () => void; done: Promise<void> }>();
  for (const g of ['a1', 'a2', 'c']) {
    let open!: () => void;
    const done = new Promise<void>((r) => (open = r));
    gates.set(g, { open, done });
  }
  const runs: Array<{ tag: string; attempt: number }> = [];
  const q = fx.open({
    clock,
    store,
    concurrency: 2,
    prefetch: 3,
    jobs: [
      defineJob({
        name: 'j',
        retry: { attempts: 3, backoff: { type: 'fixed', delay: 0 } },
        handler: async (p: { tag: string }, ctx) => {
          runs.push({ tag: p.tag, attempt: ctx.attempt });
          if (p.tag === 'J' && ctx.attempt === 1) throw new Error('first attempt fails');
          const gate = gates.get(p.tag);
          if (gate) await gate.done;
          return 'ok';
        },
      }),
    ],
  });
  // Whatever happens, nothing is left waiting when the test ends.
  onTestFinished(() => {
    sendRead();
    for (const g of gates.values()) g.open();
  });
  const [, , , J] = await q.enqueueMany(['a1', 'a2', 'X', 'J', 'c'].map((tag) => ({ name: 'j', payload: { tag } })));
  await q.start();
  // a1 and a2 hold both workers; X, J and c wait in the buffer.
  await waitFor(() => runs.length === 2);
  // Near the end of the start check's window: the next take confirms J and c ahead (one read, held back above).
  await clock.advance(START_CHECK_AFTER_MS - 5);
  gates.get('a1')!.open();
  // The worker runs X, then J (first attempt fails), then c, which holds it.
  await waitFor(() => runs.some((r) => r.tag === 'c'));
  expect(heldCalls).toBe(1);
  // J's retry comes due and this process claims it again, under a new token, into its buffer.
  for (let i = 0; i < 50; i++) {
    const now = await q.getJob(J!.id);
    if (now.state === 'processing' && now.attempts === 2) break;
    await clock.advance(1);
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(await q.getJob(J!.id)).toMatchObject({ state: 'processing', attempts: 2 });
  // The read goes now: J's first lease is gone, so it answers "not held" for it.
  sendRead();
  await new Promise((r) => setTimeout(r, 50));
  // Both workers come free: J's second attempt must run.
  gates.get('a2')!.open();
  gates.get('c')!.open();
  // Observed: J stays leased to this process and never runs (until its lease expires and the sweep spends the attempt).
  await waitFor(() => runs.filter((r) => r.tag === 'J').length === 2, 3000);
  expect(runs.filter((r) => r.tag === 'J').map((r) => r.attempt)).toEqual([1, 2]);
});
