/**
 * LIFO per enqueue (BullMQ's `lifo: true`): a job enqueued with `lifo` is
 * claimed before every job already waiting at its priority, the newest such
 * job first; priority still comes first, and the job's run time reads as its
 * creation.
 */
import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { ValidationError } from '../../src/errors.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { events, waitFor } from '../helpers/wait.js';

const fx = useQueues();

describe('enqueue lifo', () => {
  it('is claimed ahead of the jobs waiting at its priority, newest first, behind higher priorities', async () => {
    const ran: string[] = [];
    const q = fx.open({ concurrency: 1, prefetch: 0, jobs: [defineJob({ name: 'j', handler: (p: string) => void ran.push(p) })] });
    await q.enqueueMany([{ name: 'j', payload: 'fifo-1' }, { name: 'j', payload: 'fifo-2' }]);
    await q.enqueue('j', 'lifo-1', { lifo: true });
    await q.enqueueMany([{ name: 'j', payload: 'lifo-2', options: { lifo: true } }, { name: 'j', payload: 'lifo-3', options: { lifo: true } }]);
    await q.enqueue('j', 'urgent', { priority: 5 });
    await q.enqueue('j', 'fifo-3');
    const done = events(q.events$, (e) => e.to === 'completed', 7);
    await q.start();
    await done;
    expect(ran).toEqual(['urgent', 'lifo-3', 'lifo-2', 'lifo-1', 'fifo-1', 'fifo-2', 'fifo-3']);
  });

  it('reads back with its run time at its creation, marked lifo; a new run time makes it an ordinary job', async () => {
    const q = fx.open({ jobs: [] });
    const { id } = await q.enqueue('j', null, { lifo: true });
    const job = await q.getJob(id);
    expect(job.lifo).toBe(true);
    expect(job.runAt.getTime()).toBe(job.createdAt.getTime());
    const [listed] = await q.listJobs({ state: 'pending' });
    expect(listed!.runAt.getTime()).toBe(job.createdAt.getTime());
    // A new run time (update) ends its place in line: it is an ordinary delayed job from then on.
    const later = await q.update(id, { delay: 60_000 });
    expect(later.lifo).toBeUndefined();
    expect(later.runAt.getTime()).toBeGreaterThan(job.createdAt.getTime());
  });

  it('refuses lifo with a run time of its own, and a lifo that is not a boolean', async () => {
    const q = fx.open({ jobs: [] });
    for (const options of [{ lifo: true, delay: 10 }, { lifo: true, runAt: Date.now() + 10 }, { lifo: true, debounce: { key: 'k', ms: 10 } }, { lifo: 'yes' }]) {
      await expect(q.enqueue('j', null, options as never)).rejects.toBeInstanceOf(ValidationError);
    }
    expect(await q.listJobs({ state: 'pending' })).toEqual([]);
  });

  it('keeps its place through a fields-only update, and shows lifo only while it waits', async () => {
    const q = fx.open({ jobs: [defineJob({ name: 'j', handler: () => undefined })] });
    await q.enqueue('j', 'fifo');
    const { id } = await q.enqueue('j', 'lifo', { lifo: true });
    await q.update(id, { priority: 0, payload: 'lifo, updated' });
    expect((await q.getJob(id)).lifo).toBe(true);
    const taken = await q.take();
    expect(taken).toMatchObject({ id, payload: 'lifo, updated' });
    expect(taken!.lifo).toBeUndefined();
  });

  it('keeps its place when a stopping process hands it back unstarted', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = fx.open({ concurrency: 1, prefetch: 3, jobs: [defineJob({ name: 'j', handler: (p: string) => (p === 'running' ? gate : undefined) })] });
    await q.enqueueMany([{ name: 'j', payload: 'fifo-1' }, { name: 'j', payload: 'fifo-2' }]);
    const lifo = await q.enqueue('j', 'lifo', { lifo: true });
    await q.enqueue('j', 'running', { lifo: true });
    const started = events(q.events$, (e) => e.to === 'processing', 4);
    await q.start();
    await started; // the newest LIFO job runs, the other three wait in its buffer
    const stopping = q.stop();
    // The unstarted ones go back before the running one is waited for: it ends only then.
    await waitFor(async () => (await q.getJob(lifo.id)).state === 'pending');
    release();
    await stopping;
    expect(await q.getJob(lifo.id)).toMatchObject({ state: 'pending', lifo: true });
    expect((await q.take())!.id).toBe(lifo.id);
  });

  it('a batch of more than a thousand in one millisecond comes out newest first', async () => {
    const ran: number[] = [];
    const q = fx.open({ concurrency: 1, prefetch: 0, jobs: [defineJob({ name: 'j', handler: (n: number) => void ran.push(n) })] });
    await q.enqueueMany(Array.from({ length: 1500 }, (_, i) => ({ name: 'j', payload: i, options: { lifo: true } })));
    const done = events(q.events$, (e) => e.to === 'completed', 1500, 30_000);
    await q.start();
    await done;
    expect(ran).toEqual(Array.from({ length: 1500 }, (_, i) => 1499 - i));
  });
});
