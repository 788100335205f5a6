/**
 * The adaptive prefetch buffer (prefetch-size.ts, claim-buffer.ts) holds a
 * horizon of work: jobs that wait in it start within about that, so neither
 * leases nor priorities are held long. After a drain of quick jobs has grown
 * it, the same process's next claim takes long jobs at the quick ones' rate;
 * what its workers will not reach within the horizon goes back, so that
 * another process is not left idle while this one holds a minute of work.
 */
import { filter, firstValueFrom, timeout } from 'rxjs';
import { expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { waitFor } from '../helpers/wait.js';

const fx = useQueues();

it('after a drain of quick jobs, a process hands back the long jobs its workers will not reach within the horizon', async () => {
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

  // Long jobs now: 2 workers, 200 ms each, 10 jobs a second. The claim takes them at the quick jobs' rate;
  // the buffer hands back what its workers will not reach within its horizon (its signals say so).
  const claimed = firstValueFrom(a.buffer$.pipe(filter((e) => e.type === 'buffer:claimed' && e.got > 10), timeout(5000)));
  const handedBack = firstValueFrom(a.buffer$.pipe(filter((e) => e.type === 'buffer:handed-back' && e.why === 'overflow'), timeout(5000)));
  await a.enqueueMany(Array.from({ length: 600 }, (_, k) => ({ name: 'slow', payload: { k } })));
  const claim = await claimed;
  const back = await handedBack;
  // All but the two it started and the floor it keeps.
  expect(back.type === 'buffer:handed-back' ? back.jobs.length : 0).toBeGreaterThanOrEqual((claim.type === 'buffer:claimed' ? claim.got : 0) - 2 - 4 * 2);

  // Two running, and at most the floor (4 × concurrency) waiting, well before the two workers could have
  // started the rest (600 jobs of 200 ms: a minute); the others are due again for any process.
  const held = async () => Number(await fx.value(`SELECT count(*) FROM jobs WHERE name = 'slow' AND state = 'processing'`));
  const deadline = Date.now() + 5000;
  while ((await held()) > 2 + 4 * 2) {
    if (Date.now() > deadline) throw new Error(`${await held()} long jobs still held`);
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(Number(await fx.value(`SELECT count(*) FROM jobs WHERE name = 'slow' AND state = 'pending'`))).toBeGreaterThan(580);
});
