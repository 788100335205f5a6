/**
 * Durable steps survive a crash: a worker process runs a three-step job and
 * is SIGKILLed inside step 3, after steps 1 and 2 completed. Once its lease
 * runs out, another queue (this test's, on the same database) takes the job
 * over: steps 1 and 2 are replayed from the store and do not run again, step
 * 3 runs once more, and the job completes with the right result. On SQLite
 * and on PostgreSQL.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { queueTarget } from '../../src/cli/open-queue.js';
import { createQueue } from '../../src/index.js';
import { spawnFixture } from '../helpers/child-process.js';
import { pgUrl, usePgSchema } from '../helpers/postgres.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';
import { nextEvent } from '../helpers/wait.js';
import { stepsJob } from '../fixtures/steps-job.js';

const WORKER = fileURLToPath(new URL('../fixtures/steps-worker.ts', import.meta.url));
/** The dying worker's lease: the job comes back this long after the kill at most. */
const CHILD_LEASE_MS = 1000;

const newSchema = usePgSchema();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function database(store: 'sqlite' | 'postgres'): string {
  if (store === 'sqlite') {
    const file = tempDbPath();
    cleanups.push(() => file.cleanup());
    return file.path;
  }
  const url = new URL(pgUrl());
  url.searchParams.set('schema', newSchema());
  return url.toString();
}

describe.each(['sqlite', 'postgres'] as const)('a job with durable steps whose worker is SIGKILLed in step 3 (%s)', (store) => {
  it('resumes elsewhere: steps 1 and 2 run once, step 3 at most twice, and the job completes with its result', async () => {
    const db = database(store);
    const dir = mkdtempSync(join(tmpdir(), 'litejobs-steps-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const log = join(dir, 'steps.log');

    // The test's own queue enqueues now and finishes the job later.
    const queue = createQueue({ ...queueTarget(db), lease: 400, logger: silentLogger, jobs: [stepsJob(log)] });
    cleanups.push(() => queue.close({ timeout: 1000 }));
    const { id } = await queue.enqueue('steps', { n: 20 });

    const child = spawnFixture(WORKER, db, log, String(CHILD_LEASE_MS), 'die-in-step-3');
    const exit = await child.exited;
    expect({ ...exit, stderr: child.stderr.join('') }).toEqual({ code: null, signal: 'SIGKILL', stderr: '' });
    const lines = () => readFileSync(log, 'utf8').trim().split('\n');
    const childPid = String(child.proc.pid);
    expect(lines()).toEqual([`one ${childPid}`, `two ${childPid}`, `three ${childPid}`]);
    // Died holding the job: steps 1 and 2 are stored, step 3 is not.
    expect(await queue.getJob(id)).toMatchObject({ state: 'processing', attempts: 1 });
    expect((await queue.steps(id)).map((s) => s.name)).toEqual(['one', 'two']);

    const completed = nextEvent(queue.events$, (e) => e.job.id === id && e.to === 'completed', 20_000);
    await queue.start();
    await completed;

    const counts = (step: string) => lines().filter((l) => l.startsWith(`${step} `)).length;
    expect(counts('one')).toBe(1);
    expect(counts('two')).toBe(1);
    expect(counts('three')).toBeLessThanOrEqual(2);
    expect(lines().at(-1)).toBe(`three ${process.pid}`);
    const job = await queue.getJob(id);
    expect(job).toMatchObject({ state: 'completed', attempts: 2, result: { one: 21, two: { doubled: 42 }, three: '21/42' } });
    expect((await queue.history(id)).map((h) => h.event)).toContain('job.expire');
    const steps = await queue.steps(id);
    expect(steps.map((s) => [s.name, s.seq, s.attempt])).toEqual([
      ['one', 1, 1],
      ['two', 2, 1],
      ['three', 3, 2],
    ]);
  });
});
