import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent } from '../helpers/wait.js';

const fx = useQueues();

describe('a job runs through its lifecycle', () => {
  it('completes a job and records its result and history', async () => {
    const queue = fx.open({ jobs: [defineJob({ name: 'double', handler: async (n: number) => n * 2 })] });
    const { id, created } = await queue.enqueue('double', 21);
    expect(created).toBe(true);
    const done = nextEvent(queue.events$, (e) => e.job.id === id && e.to === 'completed');
    await queue.start();
    await done;
    const job = await queue.getJob(id);
    expect(job).toMatchObject({ id, name: 'double', state: 'completed', attempts: 1, result: 42, payload: 21 });
    const history = await queue.history(id);
    expect(history.map((h) => [h.from, h.to, h.event])).toEqual([
      [null, 'pending', 'job.enqueue'],
      ['pending', 'processing', 'job.claim'],
      ['processing', 'completed', 'job.complete'],
    ]);
  });
});
