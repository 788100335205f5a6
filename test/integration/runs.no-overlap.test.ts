/**
 * No job runs twice at once, even when its handler misbehaves. A handler told
 * to stop (here: its timeout ran out) that goes on running keeps its worker
 * slot and its lease, renewed, until it returns: only then is the attempt
 * recorded and the retry able to start. Past `stuckAfter` it is reported.
 */
import { describe, expect, it } from 'vitest';
import { defineJob, isTransition, type RunStuckEvent, type Store } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent } from '../helpers/wait.js';
import { filter, firstValueFrom, timeout } from 'rxjs';

const fx = useQueues();
const LEASE = 300;

describe('a handler that ignores its timeout', () => {
  it('keeps its slot and lease until it returns, is reported stuck, and its retry starts only after it ended', async () => {
    const runs: Array<{ attempt: number; start: number; end?: number }> = [];
    let letFirstReturn!: () => void;
    const firstMayReturn = new Promise<void>((resolve) => (letFirstReturn = resolve));
    const q = fx.open({
      lease: LEASE,
      stuckAfter: 200,
      concurrency: 2,
      jobs: [
        defineJob({
          name: 'stubborn',
          // Longer than the second run (three leases), so only the first one runs out of time.
          timeout: 4 * LEASE,
          retry: { attempts: 2, backoff: { type: 'fixed', delay: 0 } },
          handler: async (_: unknown, { attempt }) => {
            const run: { attempt: number; start: number; end?: number } = { attempt, start: Date.now() };
            runs.push(run);
            // The first run ignores its signal; the second runs three leases long (its lease must be renewed).
            if (attempt === 1) await firstMayReturn;
            else await new Promise((resolve) => setTimeout(resolve, 3 * LEASE));
            run.end = Date.now();
            return 'ok';
          },
        }),
      ],
    });
    const { id } = await q.enqueue('stubborn', {});
    const stuck = firstValueFrom(q.events$.pipe(filter((e): e is RunStuckEvent => e.type === 'run:stuck'), timeout(10_000)));
    await q.start();
    const event = await stuck;
    expect(event).toMatchObject({ job: { id, name: 'stubborn' }, attempts: 1, reason: 'timeout' });
    expect((await q.stats()).stuck).toBe(1);
    // Well past its lease, the job is still held by the first run: not expired, not retried.
    await new Promise((resolve) => setTimeout(resolve, 2 * LEASE));
    expect(await q.getJob(id)).toMatchObject({ state: 'processing', attempts: 1 });
    expect(runs).toHaveLength(1);

    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed', 10_000);
    letFirstReturn();
    await done;
    expect(runs).toHaveLength(2);
    expect(runs[1]!.start).toBeGreaterThanOrEqual(runs[0]!.end!);
    const history = (await q.history(id)).map((t) => `${t.event}→${t.to}`);
    expect(history).toEqual(['job.enqueue→pending', 'job.claim→processing', 'job.fail→failed', 'after retryDelay→pending', 'job.claim→processing', 'job.complete→completed']);
    expect((await q.getJob(id)).lastError).toMatchObject({ code: 'LJ_ERR_TIMEOUT' });
    expect((await q.stats()).stuck).toBe(0);
  });

  it('does not hold up the other workers: a stuck run takes one slot only', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const q = fx.open({
      concurrency: 2,
      stuckAfter: 100,
      jobs: [
        defineJob({ name: 'stuck', timeout: 50, handler: () => held }),
        defineJob({ name: 'quick', handler: () => 'ok' }),
      ],
    });
    await q.enqueue('stuck', {});
    const ids = await Promise.all([1, 2, 3].map((n) => q.enqueue('quick', n)));
    const seen = new Set<number>();
    const allQuick = new Promise<void>((resolve) => {
      q.events$.subscribe((e) => {
        if (isTransition(e) && e.to === 'completed') seen.add(e.job.id);
        if (ids.every((r) => seen.has(r.id))) resolve();
      });
    });
    await q.start();
    await allQuick;
    release();
  });

  it('a run whose lease ran out while it blocked the event loop is renewed, not expired, by its own process', async () => {
    // Heartbeats answer late (as from a busy store), so the sweep after the block reads the lease as expired.
    const inner = fx.store();
    const store: Store = {
      ...inner,
      heartbeat: async (id, token, until) => {
        await new Promise((resolve) => setTimeout(resolve, LEASE / 2));
        return inner.heartbeat(id, token, until);
      },
    };
    const q = fx.open({
      store,
      lease: LEASE,
      jobs: [
        defineJob({
          name: 'blocking',
          handler: async () => {
            const until = Date.now() + 3 * LEASE; // no renewal can run meanwhile
            while (Date.now() < until) {
              // synchronous CPU work
            }
            // Still running when the timers that were held up fire.
            await new Promise((resolve) => setTimeout(resolve, LEASE));
            return 'ok';
          },
        }),
      ],
    });
    const { id } = await q.enqueue('blocking', {});
    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed', 10_000);
    await q.start();
    await done;
    expect((await q.history(id)).map((t) => t.event)).toEqual(['job.enqueue', 'job.claim', 'job.complete']);
    expect(await q.getJob(id)).toMatchObject({ state: 'completed', attempts: 1, result: 'ok' });
  });
});
