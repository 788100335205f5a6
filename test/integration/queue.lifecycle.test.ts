import { afterEach, describe, expect, it } from 'vitest';
import { createQueue, defineJob, type Queue } from '../../src/index.js';
import { tempDbPath } from '../helpers/temp-db.js';
import { nextEvent } from '../helpers/wait.js';
import { silentLogger } from '../helpers/silent-logger.js';

let queue: Queue | undefined;
let cleanup: (() => void) | undefined;
afterEach(async () => {
  await queue?.close();
  cleanup?.();
  queue = undefined;
});

describe('a job runs through its lifecycle', () => {
  it('completes a job and records its result and history', async () => {
    const db = tempDbPath();
    cleanup = db.cleanup;
    queue = createQueue({
      path: db.path,
      logger: silentLogger,
      jobs: [defineJob({ name: 'double', handler: async (n: number) => n * 2 })],
    });
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
