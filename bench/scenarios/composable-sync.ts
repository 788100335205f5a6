/**
 * The composable scenario's transactional-enqueue rows (SQLite only): jobs
 * written by `enqueueSync` / `enqueueManySync` inside the application's own
 * better-sqlite3 transactions, each beside an application row, against
 * `await enqueue` one by one on the same queue. The queue is not started:
 * only the writes are timed.
 */
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { createQueue, type Queue } from '../../src/index.js';
import type { Contender } from '../lib/rounds.js';
import { freshDbPath, removeDb } from '../lib/tmp.js';
import { JOB } from '../peers/litejobs.js';

export const SYNC_TX = 'enqueueSync in app transaction';
export const SYNC_TX_FULL = 'enqueueSync in app transaction, app synchronous FULL';
export const INSERT_THEN_ENQUEUE = 'app insert, then await enqueue';
export const AWAITED = 'await enqueue one by one';
export const MANY_SYNC = 'enqueueManySync 1000 in app transaction';

const MANY_CHUNK = 1000;
const silent = pino({ level: 'silent' });

interface AppDatabase {
  db: Database.Database;
  queue: Queue;
  insertOrder: Database.Statement;
  close(): Promise<void>;
}

/**
 * A fresh application file with one table of its own, and a queue on the
 * application's connection (`createQueue({ database })`). The connection
 * runs at synchronous NORMAL, as the queue's own connections do at their
 * default durability, unless `full` (better-sqlite3's default, FULL).
 */
function openApp(dir: string, full: boolean): AppDatabase {
  const path = freshDbPath(dir, 'lj-app');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${full ? 'FULL' : 'NORMAL'}`);
  db.exec('CREATE TABLE orders (id INTEGER PRIMARY KEY, total INTEGER NOT NULL)');
  const queue = createQueue({ database: db, name: 'bench', logger: silent, jobs: [] });
  return {
    db,
    queue,
    insertOrder: db.prepare('INSERT INTO orders (total) VALUES (?)'),
    async close() {
      await queue.close();
      db.close();
      removeDb(path);
    },
  };
}

/** Times `body` on a fresh application file; returns jobs/s over `jobs`. */
async function timed(dir: string, jobs: number, full: boolean, body: (app: AppDatabase) => Promise<void> | void): Promise<{ rate: number }> {
  const app = openApp(dir, full);
  try {
    const t0 = performance.now();
    await body(app);
    const ms = performance.now() - t0;
    const count = (app.db.prepare('SELECT count(*) AS n FROM jobs').get() as { n: number }).n;
    if (count !== jobs) throw new Error(`${count}/${jobs} jobs written`);
    return { rate: jobs / (ms / 1000) };
  } finally {
    await app.close();
  }
}

/** `n`: jobs per round one by one; `manyN`: jobs per round of the enqueueManySync row (transactions of 1000). */
export function syncContenders(dir: string, n: number, manyN: number): Contender[] {
  const oneTx = (label: string, full: boolean): Contender => ({
    label,
    system: 'litejobs',
    run: () =>
      timed(dir, n, full, ({ db, queue, insertOrder }) => {
        const placeOrder = db.transaction((i: number) => {
          insertOrder.run(i);
          queue.enqueueSync(JOB, { i });
        });
        for (let i = 0; i < n; i++) placeOrder(i);
      }),
  });
  return [
    oneTx(SYNC_TX, false),
    oneTx(SYNC_TX_FULL, true),
    {
      label: INSERT_THEN_ENQUEUE,
      system: 'litejobs',
      run: () =>
        timed(dir, n, false, async ({ queue, insertOrder }) => {
          for (let i = 0; i < n; i++) {
            insertOrder.run(i);
            await queue.enqueue(JOB, { i });
          }
        }),
    },
    {
      label: AWAITED,
      system: 'litejobs',
      run: () =>
        timed(dir, n, false, async ({ queue }) => {
          for (let i = 0; i < n; i++) await queue.enqueue(JOB, { i });
        }),
    },
    {
      label: MANY_SYNC,
      system: 'litejobs',
      run: () =>
        timed(dir, manyN, false, ({ db, queue, insertOrder }) => {
          const placeOrders = db.transaction((start: number, count: number) => {
            const items = [];
            for (let k = 0; k < count; k++) {
              insertOrder.run(start + k);
              items.push({ name: JOB, payload: { i: start + k } });
            }
            queue.enqueueManySync(items);
          });
          for (let start = 0; start < manyN; start += MANY_CHUNK) placeOrders(start, Math.min(MANY_CHUNK, manyN - start));
        }),
    },
  ];
}

export const SYNC_PAIRS: Array<[string, string]> = [
  [SYNC_TX, AWAITED],
  [SYNC_TX, INSERT_THEN_ENQUEUE],
  [SYNC_TX_FULL, SYNC_TX],
  [MANY_SYNC, AWAITED],
];

export const syncConfig = (n: number, manyN: number): Record<string, string> => ({
  [SYNC_TX]: `${n.toLocaleString('en-US')} × db.transaction(() => { INSERT one row into the application's own table; queue.enqueueSync(name, payload) })() on the application's better-sqlite3 connection (createQueue({ database }); synchronous NORMAL, as the queue's own connections at durability normal)`,
  [SYNC_TX_FULL]: "the same with the application's connection left at better-sqlite3's default synchronous FULL (an fsync of the WAL per commit)",
  [INSERT_THEN_ENQUEUE]: "the INSERT in its own commit, then await queue.enqueue (two commits, not atomic: what an application does without transactional enqueue)",
  [AWAITED]: `${n.toLocaleString('en-US')} × await queue.enqueue(name, payload) on the same queue, no application row (the enqueue scenario's loop)`,
  [MANY_SYNC]: `${manyN.toLocaleString('en-US')} jobs as db.transaction(() => { ${MANY_CHUNK} application rows; queue.enqueueManySync(${MANY_CHUNK} items) })()`,
});
