/**
 * Three worker processes on one store run jobs whose handler always fails,
 * with a fixed backoff: every job must run exactly `attempts` times, and no
 * retry may start before its backoff has passed since the failure before it.
 * A due sweep that read a failed job and wrote its promotion after another
 * process had promoted, run and failed it again (an ABA on a compare-and-set
 * with no lease) ran jobs early and past their attempts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createQueue } from '../../src/index.js';
import { queueTarget } from '../../src/cli/open-queue.js';
import { spawnFixture, type Child } from '../helpers/child-process.js';
import { pgUrl, usePgSchema } from '../helpers/postgres.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/retry-worker.ts', import.meta.url));
const JOBS = 40;
const ATTEMPTS = 4;
const DELAY_MS = 300;
const CHILDREN = 3;

async function runAndCheck(db: string): Promise<void> {
  const producer = createQueue({ ...queueTarget(db), logger: silentLogger });
  const ids = (await producer.enqueueMany(Array.from({ length: JOBS }, (_, n) => ({ name: 'rf', payload: { n } })))).map((r) => r.id);
  const workers: Child[] = Array.from({ length: CHILDREN }, () => spawnFixture(FIXTURE, db, String(ATTEMPTS), String(DELAY_MS)));
  try {
    await Promise.all(workers.map((w) => w.waitFor((m) => m.type === 'ready', 30_000)));
    const deadline = Date.now() + 60_000;
    for (;;) {
      const dead = (await producer.listJobs({ state: 'dead', limit: JOBS })).length;
      if (dead === JOBS) break;
      if (Date.now() > deadline) throw new Error(`only ${dead} of ${JOBS} jobs dead after 60 s`);
      await sleep(50);
    }
  } finally {
    for (const w of workers) w.proc.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
  }
  const runs = new Map<number, number[]>(ids.map((id) => [id, []]));
  for (const w of workers) for (const m of w.messages) if (m.type === 'run') runs.get(Number(m.id))!.push(Number(m.at));
  const overRun: Array<{ id: number; runs: number }> = [];
  const early: Array<{ id: number; gapMs: number }> = [];
  for (const [id, at] of runs) {
    if (at.length !== ATTEMPTS) overRun.push({ id, runs: at.length });
    at.sort((a, b) => a - b);
    // A run is reported as its handler starts; the failure before it was written after the previous run started.
    for (let i = 1; i < at.length; i++) if (at[i]! - at[i - 1]! < DELAY_MS) early.push({ id, gapMs: at[i]! - at[i - 1]! });
  }
  for (const id of ids) expect((await producer.getJob(id))?.attempts).toBe(ATTEMPTS);
  await producer.close();
  expect({ overRun, early }).toEqual({ overRun: [], early: [] });
}

describe('retries across processes follow the policy exactly', () => {
  it('SQLite: 3 processes, 40 always-failing jobs: each runs exactly its attempts, never before its backoff', async () => {
    const db = tempDbPath();
    try {
      await runAndCheck(db.path);
    } finally {
      db.cleanup();
    }
  }, 90_000);

  const schema = usePgSchema();
  it('PostgreSQL: the same on one schema', async () => {
    await runAndCheck(`${pgUrl()}?schema=${schema()}`);
  }, 90_000);
});
