/** A declared job types a producer's enqueue; the producer never runs it. */
import { describe, expect, it } from 'vitest';
import { declareJob, defineJob } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent } from '../helpers/wait.js';

const fx = useQueues();

describe('declareJob', () => {
  it('a started producer with only declarations claims nothing; a worker that defines the job runs it', async () => {
    const producer = fx.open({ jobs: [declareJob<{ n: number }, number, 'double'>('double')] });
    await producer.start();
    const { id } = await producer.enqueue('double', { n: 21 });
    expect(producer.workers()).toEqual([]);
    expect((await producer.getJob(id)).state).toBe('pending');
    const worker = fx.open({ jobs: [defineJob({ name: 'double', handler: ({ n }: { n: number }) => n * 2 })] });
    const done = nextEvent(worker.events$, (e) => e.job.id === id && e.to === 'completed');
    await worker.start();
    await done;
    expect(await worker.getJob(id)).toMatchObject({ state: 'completed', result: 42 });
  });

  it('refuses a name both declared and defined, and a declaration without a name', () => {
    expect(() => fx.open({ jobs: [declareJob('x'), defineJob({ name: 'x', handler: () => 1 })] })).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
    expect(() => declareJob('')).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
  });
});
