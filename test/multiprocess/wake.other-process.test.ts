/**
 * An idle worker starts a job another process (or another connection)
 * committed without waiting for a poll: the store's WAL watch wakes its claim
 * loop. The poll is out of the picture: `pollInterval` is 60 s, and the clock
 * given to the queue never fires a timer of 200 ms or more, so neither the
 * change poll nor the idle poll (250 ms and up) can run. Only the watch can
 * wake the worker; without it these jobs would never start.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createQueue, defineJob, type Queue } from '../../src/index.js';
import type { Clock, TimerHandle } from '../../src/lib/clock.js';
import { spawnChild } from '../helpers/child-process.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';
import { nextEvent } from '../helpers/wait.js';

/** Far below the 60 s poll; generous for a busy machine. */
const PROMPTLY_MS = 5000;
const NEVER: TimerHandle = {};

/** The system clock, except that timers of 200 ms or more never fire (lease renewal, the sweeper and the polls). */
const shortTimersOnly: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => (ms < 200 ? setTimeout(fn, ms) : NEVER),
  clearTimeout: (handle) => {
    if (handle !== NEVER) clearTimeout(handle as NodeJS.Timeout);
  },
};

/** `promise`, or a rejection once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

function idleWorker(path: string): Queue {
  const queue = createQueue({
    path,
    logger: silentLogger,
    clock: shortTimersOnly,
    pollInterval: 60_000,
    jobs: [defineJob({ name: 'work', handler: async (payload: unknown) => payload })],
  });
  cleanups.push(() => queue.close({ timeout: 1000 }));
  return queue;
}

describe('an idle worker is woken by another process', () => {
  it('starts a job a child process enqueued, with no poll running', async () => {
    const db = tempDbPath();
    cleanups.push(db.cleanup);
    const worker = idleWorker(db.path);
    await worker.start(); // its first pass finds nothing: the child is not even running yet

    const completed = nextEvent(worker.events$, (e) => e.to === 'completed', 30_000);
    completed.catch(() => {}); // awaited below, within PROMPTLY_MS of the first enqueue
    const producer = spawnChild(db.path, 'enqueue'); // enqueues 'work' jobs until killed
    cleanups.push(async () => {
      producer.proc.kill('SIGKILL');
      await producer.exited;
    });
    await producer.waitFor((m) => m.type === 'ack', 20_000);
    const e = await within(completed, PROMPTLY_MS, 'a job the child enqueued completed');
    expect(e.job.name).toBe('work');
  });

  it('starts a job a second queue on its own connection enqueued, with no poll running', async () => {
    const db = tempDbPath();
    cleanups.push(db.cleanup);
    const worker = idleWorker(db.path);
    await worker.start();
    const producer = createQueue({ path: db.path, logger: silentLogger });
    cleanups.push(() => producer.close());

    const completed = nextEvent(worker.events$, (e) => e.to === 'completed', PROMPTLY_MS);
    const { id } = await producer.enqueue('work', { n: 1 });
    const e = await completed;
    expect(e.job.id).toBe(id);
    expect((await worker.getJob(id)).result).toEqual({ n: 1 });
  });
});
