/**
 * The adaptive prefetch buffer (prefetch-size.ts) "holds a horizon of work
 * … Jobs that wait in the buffer start within about one horizon, so neither
 * leases nor priorities are held long" (at most 100 ms). After a drain of
 * quick jobs has grown it, the same process's next claim must not take a
 * buffer's worth of long jobs that its workers need seconds to reach, while
 * another process sits idle.
 */
import { expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { waitFor } from '../helpers/wait.js';

const fx = useQueues();

it('after a drain of quick jobs, a process does not hoard long jobs in its buffer', async () => {
  let quickDone = 0;
  const a = fx.open({
    concurrency: 2,
    jobs: [
      defineJob({ name: 'quick', handler: () => void quickDone++ }),
      defineJob({ name: 'slow', handler: () => new Promise((r) => setTimeout(r, 200)) }),
    ],
  });
  const QUICK = 5000;
  for (let i = 0; i < QUICK; i += 1000) await a.enqueueMany(Array.from({ length: 1000 }, (_, k) => ({ name: 'quick', payload: { i: i + k } })));
  await a.start();
  await waitFor(() => quickDone === QUICK, 60_000);
  // Long jobs now: 2 workers, 200 ms each, 10 jobs a second.
  await a.enqueueMany(Array.from({ length: 600 }, (_, k) => ({ name: 'slow', payload: { k } })));
  const held = async () => Number(await fx.value(`SELECT count(*) FROM jobs WHERE name = 'slow' AND state = 'processing'`));
  /** Resolves once `ok` holds of the jobs held, within `ms`. */
  const until = async (ok: (n: number) => boolean, ms: number) => {
    const deadline = Date.now() + ms;
    for (let n = await held(); !ok(n); n = await held()) {
      if (Date.now() > deadline) throw new Error(`${n} long jobs held after ${ms} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  // The claim took them at the quick jobs' rate.
  await until((n) => n > 10, 5000);
  // Two running, and at most the floor (4 × concurrency) waiting, well before the two workers could have
  // started the rest (600 jobs of 200 ms: a minute); the others are due again for any process.
  await until((n) => n <= 2 + 4 * 2, 5000);
  expect(Number(await fx.value(`SELECT count(*) FROM jobs WHERE name = 'slow' AND state = 'pending'`))).toBeGreaterThan(500);
});
