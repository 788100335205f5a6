/**
 * Three real processes run one seconds-level schedule on one database, for a
 * few seconds: every slot from the first to the last job gets exactly one
 * job, due at its slot, created by exactly one of them. Nothing here depends
 * on timing: the processes start when they start, and the assertions hold for
 * whatever slots they happened to fire.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createQueue, type Job } from '../../src/index.js';
import { queueTarget } from '../../src/cli/open-queue.js';
import { spawnFixture, type Child } from '../helpers/child-process.js';
import { pgUrl, usePgSchema } from '../helpers/postgres.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/cron-process.ts', import.meta.url));
const CHILDREN = 3;
/** Slots all three processes run through together before they are stopped. */
const SHARED_SLOTS = 4;

async function runChildren(db: string): Promise<{ jobs: Job[]; created: number }> {
  const reader = createQueue({ ...queueTarget(db), logger: silentLogger });
  try {
    const children: Child[] = Array.from({ length: CHILDREN }, () => spawnFixture(FIXTURE, db));
    await Promise.all(children.map((c) => c.waitFor((m) => m.type === 'ready', 60_000)));
    // Every process is running: wait (in real time, generously) for a few slots more.
    const allRunning = Date.now();
    const deadline = allRunning + 60_000;
    const lastDue = async () => Math.max(0, ...(await reader.listJobs({ name: 'tick', limit: 10_000 })).map((j) => j.runAt.getTime()));
    while ((await lastDue()) < allRunning + SHARED_SLOTS * 1000) {
      if (Date.now() > deadline) throw new Error('the schedule did not fire within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const c of children) c.proc.kill('SIGTERM');
    const closed = await Promise.all(children.map((c) => c.waitFor((m) => m.type === 'closed', 30_000)));
    return { jobs: await reader.listJobs({ name: 'tick', limit: 10_000 }), created: closed.reduce((sum, m) => sum + Number(m.created), 0) };
  } finally {
    await reader.close();
  }
}

function expectOneJobPerSlot({ jobs, created }: { jobs: Job[]; created: number }): void {
  const slots = jobs.map((j) => j.runAt.getTime()).sort((a, b) => a - b);
  expect(slots.length).toBeGreaterThanOrEqual(SHARED_SLOTS);
  // One job per slot, keyed by it, and no slot left out between the first and the last.
  expect(new Set(slots).size).toBe(slots.length);
  for (const job of jobs) expect(job.key).toBe(`cron:tick:${job.runAt.getTime()}`);
  for (const slot of slots) expect(slot % 1000).toBe(0);
  expect(slots.at(-1)! - slots[0]!).toBe((slots.length - 1) * 1000);
  // Each job was created by one process: the others' inserts for its slot met its key.
  expect(created).toBe(jobs.length);
}

describe('three processes firing one schedule', () => {
  it('on one SQLite file: one job per slot, no gaps', async () => {
    const db = tempDbPath();
    try {
      expectOneJobPerSlot(await runChildren(db.path));
    } finally {
      db.cleanup();
    }
  }, 180_000);

  const newSchema = usePgSchema();
  it('on one PostgreSQL schema: one job per slot, no gaps', async () => {
    const url = new URL(pgUrl());
    url.searchParams.set('schema', newSchema());
    expectOneJobPerSlot(await runChildren(url.toString()));
  }, 180_000);
});
