/**
 * A job deleted by the move that finished it (`retention: { completed: 0 }`,
 * BullMQ's `removeOnComplete: true`) still reaches every `result()` waiter
 * and every reader of the change feed, in any process: its outcome and its
 * history are kept for `retention.outcome`, then forgotten together.
 */
import { describe, expect, it } from 'vitest';
import { declareJob, defineJob, type JobChange } from '../../src/index.js';
import { JobFailedError, JobNotFoundError } from '../../src/errors.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { waitFor } from '../helpers/wait.js';
import { systemClock, type Clock } from '../../src/lib/clock.js';

const fx = useQueues();

let release: () => void = () => {};
const double = defineJob({ name: 'double', handler: async (p: { n: number }) => p.n * 2 });
const failing = defineJob({ name: 'failing', retry: { attempts: 1 }, handler: (): void => { throw new Error('no luck'); } });
const gated = defineJob({ name: 'gated', handler: () => new Promise<string>((resolve) => (release = () => resolve('late'))) });
const ALL = [double, failing, gated];

const rowCount = (id: number) => fx.value<number>('SELECT count(*) FROM jobs WHERE id = ?', [id]).then(Number);
const historyCount = (id: number) => fx.value<number>('SELECT count(*) FROM job_history WHERE job_id = ?', [id]).then(Number);

/** A process that only enqueues and waits, and one that runs the jobs and deletes each as it finishes. */
function twoProcesses(retention: Record<string, number | string>, clock?: Clock) {
  const caller = fx.open({ jobs: [declareJob<{ n: number }, number>('double'), declareJob('failing'), declareJob('gated'), declareJob('marker')] });
  const worker = fx.open({ retention, jobs: ALL, ...(clock ? { clock } : {}) });
  return { caller, worker };
}

describe('retention 0: the outcome outlives the row', () => {
  it('result() in another process gets the value, whether it waited before the job finished or asks after its row is gone', async () => {
    const { caller, worker } = twoProcesses({ completed: 0 });
    const { id } = await caller.enqueue('double', { n: 21 });
    const waiting = caller.result(id);
    await worker.start();
    expect(await waiting).toBe(42);
    expect(await rowCount(id)).toBe(0);
    await expect(caller.getJob(id)).rejects.toBeInstanceOf(JobNotFoundError);
    // Asked after the row went: read from the kept outcome.
    expect(await caller.result(id)).toBe(42);
    expect(await caller.result({ id, name: 'double' })).toBe(42);
  });

  it('a job that ends dead, or cancelled while its run still held it, rejects with how it ended', async () => {
    const { caller, worker } = twoProcesses({ dead: 0, cancelled: 0 });
    const dead = await caller.enqueue('failing', {});
    const held = await caller.enqueue('gated', {});
    await worker.start();
    await waitFor(async () => (await rowCount(dead.id)) === 0);
    const deadErr = await caller.result(dead.id).catch((err: unknown) => err);
    expect(deadErr).toBeInstanceOf(JobFailedError);
    expect(deadErr).toMatchObject({ state: 'dead', lastError: { message: 'no luck' } });

    await waitFor(async () => (await caller.getJob(held.id)).state === 'processing');
    await caller.cancel(held.id);
    // The run still holds the job: its row stays until the run gives it back, then goes with its outcome kept.
    expect(await rowCount(held.id)).toBe(1);
    release();
    await waitFor(async () => (await rowCount(held.id)) === 0);
    await expect(caller.result(held.id)).rejects.toMatchObject({ state: 'cancelled' });
  });

  it('watch() in another process reads the creation and every move of a job deleted as it finished, live and resumed from a cursor', async () => {
    const { caller, worker } = twoProcesses({ completed: 0 });
    const seen: JobChange[] = [];
    const sub = caller.watch().subscribe((c) => seen.push(c));
    try {
      // A job no process here runs: its creation's cursor lets a reader resume from just before the next job.
      const marker = await caller.enqueue('marker', {});
      const { id } = await caller.enqueue('double', { n: 1 });
      await worker.start();
      await waitFor(() => seen.some((c) => c.id === id && c.to === 'completed'));
      const mine = seen.filter((c) => c.id === id);
      expect(mine.map((c) => [c.from, c.to, c.event, c.name])).toEqual([
        [null, 'pending', 'job.enqueue', 'double'],
        ['pending', 'processing', 'job.claim', 'double'],
        ['processing', 'completed', 'job.complete', 'double'],
      ]);
      expect(await rowCount(id)).toBe(0);
      // A reader resuming from before the job, once its row is gone, reads its creation and its moves.
      const before = seen.find((c) => c.id === marker.id)!.cursor;
      const resumed: JobChange[] = [];
      const again = caller.watch({ after: before }).subscribe((c) => resumed.push(c));
      await waitFor(() => resumed.some((c) => c.id === id && c.to === 'completed'));
      again.unsubscribe();
      expect(resumed.filter((c) => c.id === id).map((c) => [c.to, c.name])).toEqual([['pending', 'double'], ['processing', 'double'], ['completed', 'double']]);
    } finally {
      sub.unsubscribe();
    }
  });

  it('retention.outcome is at least a second', () => {
    expect(() => fx.open({ retention: { completed: 0, outcome: 999 } })).toThrow(/at least '1s'/);
  });

  it('the outcome and the history go together once older than retention.outcome', async () => {
    let offset = 0;
    const clock = { ...systemClock, now: () => Date.now() + offset };
    const { caller, worker } = twoProcesses({ completed: 0, outcome: '10s' }, clock);
    const { id } = await caller.enqueue('double', { n: 2 });
    const done = caller.result(id);
    await worker.start();
    expect(await done).toBe(4);
    expect(await historyCount(id)).toBe(2);
    await worker.stop();
    // Younger than ten seconds on the worker's clock: kept.
    await worker.start();
    await worker.stop();
    expect(await caller.result(id)).toBe(4);
    offset = 20_000;
    // A started queue forgets outcomes past their time at once, then every few seconds.
    await worker.start();
    await waitFor(async () => (await historyCount(id)) === 0);
    await expect(caller.result(id)).rejects.toBeInstanceOf(JobNotFoundError);
  });
});
