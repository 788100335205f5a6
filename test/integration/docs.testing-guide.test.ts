// The code of docs/guides/testing.md: its ```ts test blocks, in order, are this file with 'litejobs' for '../../src/index.js' (test/unit/docs.guides-samples.test.ts checks it).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { filter, firstValueFrom } from 'rxjs';
import { afterEach, expect, it } from 'vitest';
import { createQueue, createVirtualClock, defineJob, JobFailedError, type Clock } from '../../src/index.js';

// The job under test. In an application it lives in a module of its own.
const notify = defineJob({
  name: 'notify',
  retry: { attempts: 3, backoff: { type: 'fixed', delay: 60_000 } },
  handler: async ({ url, event }: { url: string; event: string }, { signal }) => {
    const res = await fetch(url, { method: 'POST', body: JSON.stringify({ event }), signal });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return { status: res.status };
  },
});

/** A receiver on a free port: answers 503 to the first `failures` requests, then 200, and keeps every body. */
async function startReceiver(failures = 0) {
  const bodies: unknown[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      bodies.push(JSON.parse(body));
      res.writeHead(bodies.length <= failures ? 503 : 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { url: `http://127.0.0.1:${port}/`, bodies, close };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A queue of its own on a private in-memory database, closed after the test.
 * No other process can write to it, so the poll for their commits (every
 * 5 ms by default) can be slow: a virtual hour then fires a tenth of the timers.
 */
function openQueue(clock?: Clock) {
  const queue = createQueue({ path: ':memory:', logger: false, pollInterval: 60_000, jobs: [notify], ...(clock ? { clock } : {}) });
  cleanups.push(() => queue.close());
  return queue;
}

async function receiver(failures = 0) {
  const r = await startReceiver(failures);
  cleanups.push(r.close);
  return r;
}

it('posts the event and stores the status as its result', async () => {
  const target = await receiver();
  const queue = openQueue();
  const { id } = await queue.enqueue('notify', { url: target.url, event: 'signup' });
  await queue.start();

  await expect(queue.result(id)).resolves.toEqual({ status: 200 });
  expect(target.bodies).toEqual([{ event: 'signup' }]);
});

it('goes dead when its last attempt fails', async () => {
  const target = await receiver(Number.POSITIVE_INFINITY);
  const queue = openQueue();
  const { id } = await queue.enqueue('notify', { url: target.url, event: 'signup' }, { retry: { attempts: 1 } });
  await queue.start();

  const err = await queue.result(id).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(JobFailedError);
  expect(err).toMatchObject({ state: 'dead', lastError: { message: 'HTTP 503' } });
});

it('retries a failed attempt once its backoff has passed, on virtual time', async () => {
  const target = await receiver(1);
  const clock = createVirtualClock(Date.parse('2026-03-02T09:00:00Z'));
  const queue = openQueue(clock);
  const { id } = await queue.enqueue('notify', { url: target.url, event: 'signup' });
  const failed = firstValueFrom(queue.events$.pipe(filter((e) => e.type === 'job:failed')));
  await queue.start();
  await failed;
  expect(await queue.getJob(id)).toMatchObject({ state: 'failed', attempts: 1, runAt: new Date(clock.now() + 60_000) });

  await clock.advance(59_999);
  expect((await queue.getJob(id)).state).toBe('failed');
  await clock.advance(1);
  await expect(queue.result(id)).resolves.toEqual({ status: 200 });
  expect(target.bodies).toHaveLength(2);

  const history = await queue.history(id);
  expect(history.map((t) => [t.from, t.to, t.event])).toEqual([
    [null, 'pending', 'job.enqueue'],
    ['pending', 'processing', 'job.claim'],
    ['processing', 'failed', 'job.fail'],
    ['failed', 'pending', 'after retryDelay'],
    ['pending', 'processing', 'job.claim'],
    ['processing', 'completed', 'job.complete'],
  ]);
  expect(history[2]?.error?.message).toBe('HTTP 503');
});

it('leaves a delayed job alone until it is due', async () => {
  const target = await receiver();
  const clock = createVirtualClock(Date.parse('2026-03-02T09:00:00Z'));
  const queue = openQueue(clock);
  const { id } = await queue.enqueue('notify', { url: target.url, event: 'trial-ends' }, { delay: 3_600_000 });
  const firstPass = firstValueFrom(queue.passes$);
  await queue.start();

  const pass = await firstPass;
  expect(pass).toMatchObject({ claimed: 0, nextLookAt: new Date(clock.now() + 3_600_000) });
  expect(target.bodies).toEqual([]);

  await clock.advance(3_600_000);
  await expect(queue.result(id)).resolves.toEqual({ status: 200 });
});
