/**
 * queue.result(id): the job's result once it finishes, in this process or
 * another connection's; why it has none otherwise. The waiting queue runs on
 * a virtual clock nobody advances, so its slow safety tick never fires: only
 * the store's hint (SQLite's WAL watch, PostgreSQL's notification) or this
 * process's own events can wake it.
 */
import { describe, expect, it } from 'vitest';
import { createVirtualClock, defineJob, JobFailedError, JobNotFoundError, WaitTimeoutError } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';

const fx = useQueues();
const still = () => createVirtualClock(Date.now());

describe('queue.result', () => {
  it('resolves with the result of a job run by another connection, woken by the store alone', async () => {
    const waiter = fx.open({ clock: still() });
    const { id } = await waiter.enqueue('render', { page: 3 });
    const pending = waiter.result<{ pages: number }>(id);
    const worker = fx.open({ jobs: [defineJob({ name: 'render', handler: async ({ page }: { page: number }) => ({ pages: page * 2 }) })] });
    await worker.start();
    await expect(pending).resolves.toEqual({ pages: 6 });
    // Finished already: answered at once.
    await expect(waiter.result(id)).resolves.toEqual({ pages: 6 });
  });

  it('takes { id, name }: the result of that job; a job of another name is refused, and nothing else is taken', async () => {
    const render = defineJob({ name: 'render', handler: async ({ page }: { page: number }) => ({ pages: page * 2 }) });
    const q = fx.open({ jobs: [render, defineJob({ name: 'other', handler: () => 'x' })] });
    const job = await q.enqueue('render', { page: 4 });
    await q.start();
    const out = await q.result({ id: job.id, name: 'render' });
    expect(out).toEqual({ pages: 8 });
    await expect(q.result({ id: job.id, name: 'other' })).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION', message: `result: job ${job.id} is a "render" job, not "other"` });
    // A caller's name is quoted, and bounded, in the message.
    const long = await q.result({ id: job.id, name: `x${'y'.repeat(10_000)}` }).catch((e: Error) => e);
    expect((long as Error).message.length).toBeLessThan(300);
    await expect(q.result({ id: 0, name: 'render' })).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    await expect(q.result({ id: job.id, name: 5 } as never)).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION', message: 'result: the job name must be a string' });
    await expect(q.result({ id: 999_999, name: 'render' })).rejects.toBeInstanceOf(JobNotFoundError);
  });

  it('rejects with JobFailedError for a job that ends dead or cancelled, with its state and last error', async () => {
    const waiter = fx.open({ clock: still() });
    const { id: bad } = await waiter.enqueue('bad', {});
    const { id: later } = await waiter.enqueue('bad', {}, { delay: 3_600_000 });
    // Caught at once: either may reject while the test awaits something else.
    const dead = waiter.result(bad).catch((e: unknown) => e);
    const cancelled = waiter.result(later).catch((e: unknown) => e);
    const worker = fx.open({ jobs: [defineJob({ name: 'bad', retry: { attempts: 1 }, handler: () => { throw new Error('no paper'); } })] });
    await worker.start();
    const died = await dead;
    expect(died).toBeInstanceOf(JobFailedError);
    expect(died).toMatchObject({ code: 'LJ_ERR_JOB_FAILED', jobId: bad, state: 'dead', lastError: { message: 'no paper' } });
    await worker.cancel(later);
    const err = await cancelled;
    expect(err).toBeInstanceOf(JobFailedError);
    expect(err).toMatchObject({ state: 'cancelled', lastError: null });
  });

  it('in the process that runs the job, follows its own events', async () => {
    const q = fx.open({ clock: still(), jobs: [defineJob({ name: 'echo', handler: async (p: unknown) => p })] });
    const { id } = await q.enqueue('echo', { hello: 'world' });
    const pending = q.result(id);
    await q.start();
    await expect(pending).resolves.toEqual({ hello: 'world' });
  });

  it('gives up after its timeout or when its signal aborts; the job goes on. Bad input and unknown ids are typed errors', async () => {
    const clock = createVirtualClock(Date.now());
    const q = fx.open({ clock });
    const { id } = await q.enqueue('slow', {});
    const timedOut = q.result(id, { timeout: 5000 }).catch((e: unknown) => e);
    await clock.advance(5000);
    const err = await timedOut;
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect(err).toMatchObject({ code: 'LJ_ERR_WAIT_TIMEOUT', jobId: id });
    const ctl = new AbortController();
    const aborted = q.result(id, { signal: ctl.signal });
    ctl.abort(new Error('user left'));
    await expect(aborted).rejects.toThrow('user left');
    expect((await q.getJob(id)).state).toBe('pending');
    await expect(q.result(id + 1000)).rejects.toBeInstanceOf(JobNotFoundError);
    await expect(q.result(id, { timeout: -1 })).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    await expect(q.result(id, { wait: 1 } as never)).rejects.toMatchObject({ code: 'LJ_ERR_UNKNOWN_OPTION' });
  });

  it('rejects the waiters when the queue closes', async () => {
    const q = fx.open({ clock: still() });
    const { id } = await q.enqueue('never', {});
    const pending = q.result(id).catch((e: unknown) => e);
    await q.close();
    expect(await pending).toMatchObject({ code: 'LJ_ERR_QUEUE_CLOSED' });
  });
});
