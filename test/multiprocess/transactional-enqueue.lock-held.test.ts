/**
 * SQLite has one writer at a time per file: while an application's
 * transaction holds the write lock, the queue's claims, completions and
 * enqueues wait. Held longer than the queue's busyTimeout — by another
 * process (test/fixtures/hold-write-lock.ts) or by this process's own open
 * transaction that enqueued with enqueueSync — those writes fail for a while;
 * once the lock is released every job still completes, exactly once.
 */
import Database from 'better-sqlite3';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, expect, it } from 'vitest';
import { createQueue, defineJob, isTransition, type Queue } from '../../src/index.js';
import { spawnFixture } from '../helpers/child-process.js';
import { tempDir } from '../helpers/temp-db.js';
import { waitFor } from '../helpers/wait.js';

const HOLD = fileURLToPath(new URL('../fixtures/hold-write-lock.ts', import.meta.url));

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('a write lock held past busyTimeout delays claims and completions; afterwards every job completes exactly once', async () => {
  const dir = tempDir();
  cleanups.push(() => dir.cleanup());
  const path = join(dir.dir, 'app.db');
  const db = new Database(path);
  cleanups.push(() => db.close());
  db.exec('CREATE TABLE orders (id INTEGER PRIMARY KEY)');

  const logs: Array<{ loop?: string; msg: string }> = [];
  const runs = new Map<number, number>();
  // The first runs finish only once the lock is held: their completions meet it.
  let lockTaken!: () => void;
  const locked = new Promise<void>((resolve) => (lockTaken = resolve));
  const queue: Queue = createQueue({
    database: db,
    logger: pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as { loop?: string; msg: string }) }),
    busyTimeout: 50,
    lease: 2_000,
    concurrency: 4,
    prefetch: 0,
    jobs: [
      defineJob({
        name: 'ship',
        handler: async (p: { order: number }) => {
          runs.set(p.order, (runs.get(p.order) ?? 0) + 1);
          await locked;
        },
      }),
    ],
  });
  cleanups.push(() => queue.close());
  const completed = new Set<number>();
  const sub = queue.events$.subscribe((e) => {
    if (isTransition(e) && e.to === 'completed') completed.add(e.job.id);
  });
  cleanups.push(() => sub.unsubscribe());

  const order = db.prepare('INSERT INTO orders (id) VALUES (?)');
  const placeOrders = db.transaction((from: number, n: number) => {
    for (let id = from; id < from + n; id++) {
      order.run(id);
      queue.enqueueSync('ship', { order: id });
    }
  });
  placeOrders(1, 40);
  await queue.start();
  await waitFor(() => runs.size === 4);

  // Another process holds the write lock for 20 busyTimeouts.
  const holder = spawnFixture(HOLD, path, '1000');
  await holder.waitFor((m) => m.type === 'locked', 20_000);
  lockTaken();
  await holder.waitFor((m) => m.type === 'committed', 20_000);

  // This process's own transaction, open across awaits, holds it as long: its jobs wait for its COMMIT.
  db.exec('BEGIN IMMEDIATE');
  for (let id = 41; id <= 50; id++) {
    order.run(id);
    queue.enqueueSync('ship', { order: id });
  }
  await pause(1000);
  db.exec('COMMIT');

  await waitFor(() => completed.size === 50, 60_000);
  expect(Math.max(...runs.values())).toBe(1);
  expect(runs.size).toBe(50);
  const stats = await queue.stats();
  expect(stats.byState).toEqual({ completed: 50 });
  // The outcomes finished under the lock waited for it (logged once per outage), and went in afterwards.
  const outage = (loop: string) => logs.filter((l) => l.loop === loop).map((l) => l.msg.split(';')[0]);
  expect(outage('recording job outcomes')).toContain('recording job outcomes: the database is locked by another connection past busyTimeout');
  expect(outage('recording job outcomes')).toContain('recording job outcomes: the database answers again');
});
