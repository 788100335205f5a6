/**
 * Three real worker processes on one database drain grouped jobs of
 * `groupConcurrency: 1` and jobs of a name with `globalConcurrency: 2`. Each
 * run holds an exclusive lock file for its group (or one of two for the
 * capped name): a second run of one group at once, in any process, would
 * find the file taken. Every job runs exactly once.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { queueTarget } from '../../src/cli/open-queue.js';
import { createQueue } from '../../src/index.js';
import { spawnFixture, type Child } from '../helpers/child-process.js';
import { pgUrl, usePgSchema } from '../helpers/postgres.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/group-worker.ts', import.meta.url));
const GROUPS = 20;
const PER_GROUP = 8;
const CAPPED = 40;

async function drainInChildren(db: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'litejobs-groups-'));
  const producer = createQueue({ ...queueTarget(db), logger: silentLogger });
  try {
    // Group after group: the order a first-in-first-out claim would serialize.
    const items = [];
    for (let g = 0; g < GROUPS; g++) for (let i = 0; i < PER_GROUP; i++) items.push({ name: 'per-group', payload: { group: `g${g}` }, options: { group: `g${g}` } });
    for (let i = 0; i < CAPPED; i++) items.push({ name: 'capped', payload: null });
    const children: Child[] = Array.from({ length: 3 }, () => spawnFixture(FIXTURE, db, dir));
    await Promise.all(children.map((c) => c.waitFor((m) => m.type === 'ready', 60_000)));
    // Enqueued once all three run, so they race for the jobs from the first.
    const ids = (await producer.enqueueMany(items)).map((r) => r.id);
    const deadline = Date.now() + 90_000;
    while (((await producer.stats()).byState.completed ?? 0) < ids.length) {
      if (Date.now() > deadline) throw new Error(`not drained: ${JSON.stringify((await producer.stats()).byState)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (const c of children) c.proc.kill('SIGTERM');
    await Promise.all(children.map((c) => c.waitFor((m) => m.type === 'closed', 30_000)));

    const lines = readFileSync(join(dir, 'runs.log'), 'utf8').trim().split('\n');
    expect(lines.filter((l) => l.startsWith('overlap'))).toEqual([]);
    const ran = lines.filter((l) => l.startsWith('ran ')).map((l) => Number(l.slice(4)));
    expect(ran.length).toBe(ids.length);
    expect(new Set(ran)).toEqual(new Set(ids));
    // The processes ran jobs side by side (one holds at most its prefetch of the groups).
    const pids = new Set((await producer.listJobs({ state: 'completed', limit: 10_000 })).map((j) => j.result));
    expect(pids.size).toBeGreaterThanOrEqual(2);
  } finally {
    await producer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('group and global concurrency across three processes', () => {
  it('on one SQLite file: never two runs of a group, never three of the capped name', async () => {
    const db = tempDbPath();
    try {
      await drainInChildren(db.path);
    } finally {
      db.cleanup();
    }
  }, 180_000);

  const newSchema = usePgSchema();
  it('on one PostgreSQL schema: never two runs of a group, never three of the capped name', async () => {
    const url = new URL(pgUrl());
    url.searchParams.set('schema', newSchema());
    await drainInChildren(url.toString());
  }, 180_000);
});
