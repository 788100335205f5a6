import { describe, expect, it } from 'vitest';
import { defineJob, RetryLaterError, UnrecoverableError } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { events, nextEvent } from '../helpers/wait.js';

const fx = useQueues();
const fast = { backoff: { type: 'fixed', delay: 5 } } as const;

describe('retry policies decide what happens after a failure', () => {
  it('retries with backoff, then goes dead when attempts run out', async () => {
    let runs = 0;
    const q = fx.open({
      jobs: [defineJob({ name: 'flaky', retry: { ...fast, attempts: 3 }, handler: () => { runs++; throw new Error('boom'); } })],
    });
    const { id } = await q.enqueue('flaky', {});
    const dead = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'dead');
    await q.start();
    expect((await dead).error).toMatchObject({ name: 'Error', message: 'boom' });
    expect(runs).toBe(3);
    const job = await q.getJob(id);
    expect(job).toMatchObject({ state: 'dead', attempts: 3, lastError: { message: 'boom' } });
    expect((await q.history(id)).map((h) => h.to)).toEqual([
      'pending', 'processing', 'failed', 'pending', 'processing', 'failed', 'pending', 'processing', 'dead',
    ]);
  });

  it('recovers when a later attempt succeeds and sees the attempt number', async () => {
    const seen: number[] = [];
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'third-time',
          retry: { ...fast, attempts: 5 },
          handler: (_p, { attempt }) => {
            seen.push(attempt);
            if (attempt < 3) throw new Error(`fail ${attempt}`);
            return 'ok';
          },
        }),
      ],
    });
    const { id } = await q.enqueue('third-time', null);
    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    await q.start();
    await done;
    expect(seen).toEqual([1, 2, 3]);
    expect(await q.getJob(id)).toMatchObject({ state: 'completed', attempts: 3, result: 'ok' });
  });

  it('sends UnrecoverableError straight to dead', async () => {
    let runs = 0;
    const q = fx.open({
      jobs: [defineJob({ name: 'bad', retry: { ...fast, attempts: 5 }, handler: () => { runs++; throw new UnrecoverableError('bad data'); } })],
    });
    const { id } = await q.enqueue('bad', {});
    const dead = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'dead');
    await q.start();
    expect((await dead).error).toMatchObject({ name: 'UnrecoverableError', code: 'LJ_ERR_UNRECOVERABLE', unrecoverable: true });
    expect(runs).toBe(1);
  });

  it('honours deadOn and retryOn by error name or code', async () => {
    class PaymentDeclined extends Error { override name = 'PaymentDeclined'; }
    const q = fx.open({
      jobs: [
        defineJob({ name: 'charge', retry: { ...fast, attempts: 5, deadOn: ['PaymentDeclined'] }, handler: () => { throw new PaymentDeclined('no'); } }),
        defineJob({ name: 'fetch', retry: { ...fast, attempts: 5, retryOn: ['ECONNRESET'] }, handler: () => { throw Object.assign(new Error('x'), { code: 'EACCES' }); } }),
      ],
    });
    const a = await q.enqueue('charge', {});
    const b = await q.enqueue('fetch', {});
    const dead = events(q.events$, (e) => e.to === 'dead', 2);
    await q.start();
    await dead;
    expect(await q.getJob(a.id)).toMatchObject({ state: 'dead', attempts: 1 });
    expect(await q.getJob(b.id)).toMatchObject({ state: 'dead', attempts: 1 });
  });

  it('RetryLaterError reschedules after the given delay without spending an attempt', async () => {
    let runs = 0;
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'rate-limited',
          retry: { attempts: 1 },
          handler: () => {
            runs++;
            if (runs < 3) throw new RetryLaterError(20);
            return runs;
          },
        }),
      ],
    });
    const { id } = await q.enqueue('rate-limited', {});
    const failed = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'failed');
    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    await q.start();
    const f = await failed;
    expect(f.runAt!.getTime() - f.at.getTime()).toBe(20);
    expect(f.attempts).toBe(0);
    await done;
    // attempts: 1 allows a single real attempt; the two deferrals spent none.
    expect(await q.getJob(id)).toMatchObject({ state: 'completed', attempts: 1, result: 3 });
  });

  it('a handler past its timeout fails with TimeoutError and sees its signal abort', async () => {
    let aborted = false;
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'slow',
          timeout: 30,
          retry: { attempts: 1 },
          handler: (_p, { signal }) =>
            new Promise((_resolve, reject) => {
              signal.addEventListener('abort', () => {
                aborted = true;
                reject(signal.reason as Error);
              });
            }),
        }),
      ],
    });
    const { id } = await q.enqueue('slow', {});
    const dead = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'dead');
    await q.start();
    expect((await dead).error).toMatchObject({ name: 'TimeoutError', code: 'LJ_ERR_TIMEOUT' });
    expect(aborted).toBe(true);
  });

  it('a per-job retry override replaces the definition policy for that job only', async () => {
    const q = fx.open({
      jobs: [defineJob({ name: 'f', retry: { ...fast, attempts: 5 }, handler: () => { throw new Error('x'); } })],
    });
    const once = await q.enqueue('f', 1, { retry: { attempts: 1 } });
    const five = await q.enqueue('f', 2);
    const dead = events(q.events$, (e) => e.to === 'dead', 2);
    await q.start();
    await dead;
    expect((await q.getJob(once.id)).attempts).toBe(1);
    expect((await q.getJob(five.id)).attempts).toBe(5);
  });

  it('exponential backoff spaces the retries as the policy says', async () => {
    const q = fx.open({
      jobs: [defineJob({ name: 'e', retry: { attempts: 4, backoff: { type: 'exponential', delay: 10, factor: 3 } }, handler: () => { throw new Error('x'); } })],
    });
    const { id } = await q.enqueue('e', 1);
    const failures = events(q.events$, (e) => e.job.id === id && e.to === 'failed', 3);
    await q.start();
    const delays = (await failures).map((e) => e.runAt!.getTime() - e.at.getTime());
    expect(delays).toEqual([10, 30, 90]);
  });
});
