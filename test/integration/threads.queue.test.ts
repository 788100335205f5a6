/**
 * Jobs defined with `isolation: 'thread'` run through the queue on worker
 * threads: CPU-bound work longer than the lease keeps its lease (the main
 * thread goes on renewing it, so no other process takes the job), a handler
 * that ignores its timeout or a cancel is terminated, and the ctx calls come
 * back to the job row.
 */
import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { spawnChild } from '../helpers/child-process.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent } from '../helpers/wait.js';

const fx = useQueues();
const handler = (name: string) => new URL(`../fixtures/thread-handlers/${name}.ts`, import.meta.url);
/**
 * Short enough that the work spans several leases; long enough that the
 * renewals (every quarter lease) keep it on a machine whose cores are all busy.
 */
const LEASE = 750;

describe('thread jobs', () => {
  it('CPU-bound work four leases long keeps its lease: another process sharing the file never takes the job', async () => {
    // Named 'work' so that the worker child process (test/fixtures/worker-process.ts) runs it too:
    // its lease sweeper would expire a lease this process failed to renew, and take the job.
    const q = fx.open({ lease: LEASE, jobs: [defineJob({ name: 'work', isolation: 'thread', module: handler('busy') })] });
    // Started first (spawning is synchronous), it boots while the job runs here.
    const other = spawnChild(fx.dbArg(), 'work');
    const { id } = await q.enqueue('work', { ms: 4 * LEASE });
    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed', 20_000);
    await q.start();
    await done;
    await other.waitFor((m) => m.type === 'ready', 10_000);
    const events = (await q.history(id)).map((t) => t.event);
    expect(events).toEqual(['job.enqueue', 'job.claim', 'job.complete']);
    const job = await q.getJob(id);
    expect(job).toMatchObject({ state: 'completed', attempts: 1, progress: 0 });
    expect((job.result as { iterations: number }).iterations).toBeGreaterThan(0);
  });

  it('a handler that ignores its timeout is terminated: the attempt fails with LJ_ERR_TIMEOUT, and the pool runs the next job', async () => {
    const q = fx.open({
      threads: 1,
      jobs: [
        defineJob({ name: 'spin', isolation: 'thread', module: handler('spin'), timeout: 200, retry: { attempts: 1 } }),
        defineJob({ name: 'echo', isolation: 'thread', module: handler('echo') }),
      ],
    });
    const spin = await q.enqueue('spin', {});
    const dead = nextEvent(q.events$, (e) => e.job.id === spin.id && e.to === 'dead', 15_000);
    await q.start();
    await dead;
    expect((await q.getJob(spin.id)).lastError).toMatchObject({ code: 'LJ_ERR_TIMEOUT' });
    const echo = await q.enqueue('echo', { hello: 'thread' });
    await nextEvent(q.events$, (e) => e.job.id === echo.id && e.to === 'completed', 15_000);
    expect((await q.stats()).stuck).toBe(0);
  });

  it('cancel ends a thread job that ignores its signal', async () => {
    const q = fx.open({ threads: 1, jobs: [defineJob({ name: 'spin', isolation: 'thread', module: handler('spin') }), defineJob({ name: 'echo', isolation: 'thread', module: handler('echo') })] });
    const { id } = await q.enqueue('spin', {});
    const running = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'processing');
    await q.start();
    await running;
    expect((await q.cancel(id)).state).toBe('cancelled');
    // The one thread was freed: the next job runs.
    const echo = await q.enqueue('echo', 1);
    await nextEvent(q.events$, (e) => e.job.id === echo.id && e.to === 'completed', 15_000);
  });

  it('refuses a thread job without a module, and one with a handler as well', () => {
    expect(() => defineJob({ name: 'x', isolation: 'thread' })).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
    expect(() => defineJob({ name: 'x', isolation: 'thread', module: handler('echo'), handler: () => 1 })).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
    expect(() => defineJob({ name: 'x', module: handler('echo'), handler: () => 1 })).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
  });
});
