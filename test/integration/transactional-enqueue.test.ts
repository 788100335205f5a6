/**
 * enqueueSync / enqueueManySync with the application's own better-sqlite3
 * connection (`createQueue({ database })`): the job commits or rolls back with
 * the application's transaction, leaves nothing behind after a rollback (no
 * row, no history, no unique key held, no event), runs once committed, and the
 * connections that cannot share the file are refused.
 */
import Database from 'better-sqlite3';
import { copyFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pino } from 'pino';
import type { Subscription } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createQueue, createVirtualClock, defineJob, isTransition, type JobTransitionEvent, type Queue } from '../../src/index.js';
import { z } from 'zod';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDir } from '../helpers/temp-db.js';
import { nextEvent } from '../helpers/wait.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A file of the application's, with its own table, and its connection. */
function appDatabase(): { path: string; db: Database.Database } {
  const dir = tempDir();
  const path = join(dir.dir, 'app.db');
  const db = new Database(path);
  db.exec('CREATE TABLE orders (id INTEGER PRIMARY KEY, total INTEGER NOT NULL)');
  cleanups.push(() => dir.cleanup());
  cleanups.push(() => db.open && db.close());
  return { path, db };
}

function queueOn(options: Parameters<typeof createQueue>[0]): Queue {
  const q = createQueue({ logger: silentLogger, ...options });
  cleanups.push(() => q.close());
  return q;
}

/** Counts read by a connection of their own: what is committed in the file. */
function committed(path: string): { jobs: number; history: number; orders: number } {
  const db = new Database(path, { readonly: true });
  try {
    const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    return { jobs: count('jobs'), history: count('job_history'), orders: count('orders') };
  } finally {
    db.close();
  }
}

/** Every transition event of `queue` from now on. */
function record(queue: Queue): JobTransitionEvent[] {
  const seen: JobTransitionEvent[] = [];
  const sub: Subscription = queue.events$.subscribe((e) => {
    if (isTransition(e)) seen.push(e);
  });
  cleanups.push(() => sub.unsubscribe());
  return seen;
}

/** Lets the wake-ups scheduled after the calling code run. */
const afterTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('inside the application transaction', () => {
  it('a rollback leaves no job, no history, no unique key held and no event', async () => {
    const { path, db } = appDatabase();
    const queue = queueOn({ database: db });
    const seen = record(queue);
    const placeOrder = db.transaction((id: number) => {
      db.prepare('INSERT INTO orders (id, total) VALUES (?, ?)').run(id, 100);
      const single = queue.enqueueSync('receipt', { order: id }, { unique: { key: `order:${id}` } });
      const many = queue.enqueueManySync([
        { name: 'ship', payload: { order: id }, options: { key: `ship:${id}` } },
        { name: 'notify', payload: { order: id }, options: { group: 'customer:1' } },
      ]);
      expect(single.created).toBe(true);
      expect(many.every((r) => r.created)).toBe(true);
      throw new Error('payment declined');
    });
    expect(() => placeOrder(1)).toThrow('payment declined');
    await afterTurn();
    expect(committed(path)).toEqual({ jobs: 0, history: 0, orders: 0 });
    expect((await queue.stats()).total).toBe(0);
    expect(seen).toEqual([]);

    // The unique key and the idempotency key were never held.
    const again = queue.enqueueSync('receipt', { order: 1 }, { unique: { key: 'order:1' } });
    expect(again.created).toBe(true);
    expect((await queue.enqueue('ship', { order: 1 }, { key: 'ship:1' })).created).toBe(true);
    expect(committed(path).jobs).toBe(2);
  });

  it('a commit writes the job with the application rows, and a started queue runs it', async () => {
    const { path, db } = appDatabase();
    const ran: unknown[] = [];
    const queue = queueOn({ database: db, jobs: [defineJob({ name: 'receipt', handler: async (p: { order: number }) => void ran.push(p) })] });
    await queue.start();
    const seen = record(queue);
    const placeOrder = db.transaction((id: number) => {
      db.prepare('INSERT INTO orders (id, total) VALUES (?, ?)').run(id, 100);
      return queue.enqueueSync('receipt', { order: id });
    });
    const done = nextEvent(queue.events$, (e) => e.to === 'completed');
    const job = placeOrder(7);
    expect(committed(path)).toMatchObject({ jobs: 1, orders: 1 });
    expect((await done).job.id).toBe(job.id);
    expect(ran).toEqual([{ order: 7 }]);
    // Written inside a transaction: no enqueue event (its commit was not the queue's to see); the run's own events follow.
    expect(seen.filter((e) => e.job.id === job.id).map((e) => e.to)).toEqual(['processing', 'completed']);
  });

  it('enqueueManySync is all or nothing: a bad item writes nothing, and uncaught it rolls back the application writes too', async () => {
    const { path, db } = appDatabase();
    const queue = queueOn({ database: db });
    const items = [
      { name: 'ship', payload: { order: 1 } },
      { name: 'ship', payload: { order: 2 }, options: { delay: -5 } },
    ];
    const uncaught = db.transaction(() => {
      db.prepare('INSERT INTO orders (id, total) VALUES (1, 10)').run();
      queue.enqueueManySync(items);
    });
    expect(uncaught).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
    expect(committed(path)).toMatchObject({ jobs: 0, orders: 0 });

    // Caught, the application's own writes commit, and none of the batch's jobs.
    db.transaction(() => {
      db.prepare('INSERT INTO orders (id, total) VALUES (2, 20)').run();
      expect(() => queue.enqueueManySync(items)).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
    })();
    expect(committed(path)).toMatchObject({ jobs: 0, orders: 1 });
  });

  it('enqueueManySync failing while it writes rolls back its own rows only (a savepoint)', async () => {
    const { path, db } = appDatabase();
    const queue = queueOn({ database: db });
    // A trigger of this connection only: the second row's insert fails after the first was written.
    db.exec("CREATE TEMP TRIGGER refuse_boom BEFORE INSERT ON main.jobs WHEN NEW.name = 'boom' BEGIN SELECT RAISE(ABORT, 'boom refused'); END");
    db.transaction(() => {
      db.prepare('INSERT INTO orders (id, total) VALUES (3, 30)').run();
      expect(() => queue.enqueueManySync([{ name: 'ship', payload: { order: 3 } }, { name: 'boom', payload: {} }])).toThrow(expect.objectContaining({ name: 'DatabaseError' }));
      queue.enqueueSync('ship', { order: 3, again: true });
    })();
    const jobs = await queue.listJobs();
    expect(jobs.map((j) => j.payload)).toEqual([{ order: 3, again: true }]);
    expect(committed(path)).toMatchObject({ jobs: 1, orders: 1 });
  });

  it('dedupes unique and idempotency keys within one transaction and against committed jobs', async () => {
    const { path, db } = appDatabase();
    const queue = queueOn({ database: db });
    const before = await queue.enqueue('sync', { n: 0 }, { key: 'k' });
    const results = db.transaction(() => [
      queue.enqueueSync('receipt', { n: 1 }, { unique: { key: 'u' } }),
      queue.enqueueSync('receipt', { n: 2 }, { unique: { key: 'u' } }),
      ...queue.enqueueManySync([
        { name: 'receipt', payload: { n: 3 }, options: { unique: { key: 'u' } } },
        { name: 'sync', payload: { n: 4 }, options: { key: 'k' } },
      ]),
    ])();
    const [first, ...rest] = results;
    expect(first!.created).toBe(true);
    expect(rest).toEqual([
      { id: first!.id, created: false, state: 'pending' },
      { id: first!.id, created: false, state: 'pending' },
      { id: before.id, created: false, state: 'pending' },
    ]);
    expect(committed(path).jobs).toBe(2);
    expect((await queue.getJob(first!.id)).payload).toEqual({ n: 1 });
  });

  it('validation errors throw before anything is written, inside the transaction', () => {
    const { path, db } = appDatabase();
    const queue = queueOn({ database: db });
    const tx = db.transaction(() => {
      db.prepare('INSERT INTO orders (id, total) VALUES (4, 40)').run();
      queue.enqueueSync('ship', { big: 'x'.repeat(100) }, { priority: 1.5 });
    });
    expect(tx).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
    expect(() => queue.enqueueSync('ship', {}, { client: {} } as never)).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION', message: expect.stringContaining('PostgreSQL') }));
    expect(() => queue.enqueueManySync('ship' as never)).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
    expect(() => queue.enqueueManySync([], { other: 1 } as never)).toThrow(expect.objectContaining({ code: 'LJ_ERR_UNKNOWN_OPTION' }));
    expect(committed(path)).toMatchObject({ jobs: 0, orders: 0 });
  });
  it("validates payloads with the job's schema: the output is stored, a refused one throws inside the transaction", async () => {
    const { path, db } = appDatabase();
    const ship = defineJob({ name: 'ship', schema: z.object({ to: z.string().trim(), n: z.number().default(1) }), handler: () => undefined });
    const later = defineJob({ name: 'later', schema: z.string().refine(async () => true), handler: () => undefined });
    const queue = queueOn({ database: db, jobs: [ship, later] });
    const { id } = db.transaction(() => queue.enqueueSync('ship', { to: ' ada ' }))();
    expect((await queue.getJob(id)).payload).toEqual({ to: 'ada', n: 1 });
    const refused = db.transaction(() => {
      db.prepare('INSERT INTO orders (id, total) VALUES (5, 50)').run();
      queue.enqueueManySync([{ name: 'ship', payload: { to: 'b' } }, { name: 'ship', payload: { to: 3 } as never }]);
    });
    expect(refused).toThrow(expect.objectContaining({ code: 'LJ_ERR_INVALID_PAYLOAD', index: 1, issues: [expect.objectContaining({ path: ['to'] })] }));
    expect(() => queue.enqueueSync('later', 'x')).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION', message: expect.stringContaining('asynchronously') }));
    expect(committed(path)).toMatchObject({ jobs: 1, orders: 0 });
  });

  it('another connection holding the write lock past the busy timeout: enqueueSync throws a DatabaseError inside the transaction', () => {
    const { path, db } = appDatabase();
    const queue = queueOn({ database: db });
    db.pragma('busy_timeout = 20');
    const other = new Database(path);
    cleanups.push(() => other.close());
    other.exec('BEGIN IMMEDIATE');
    const tx = db.transaction(() => {
      queue.enqueueSync('ship', {});
    });
    expect(tx).toThrow(expect.objectContaining({ name: 'DatabaseError', code: 'LJ_ERR_DATABASE', message: expect.stringContaining("locked by another connection past the connection's busy timeout") }));
    other.exec('COMMIT');
    expect(db.inTransaction).toBe(false);
    tx();
    expect(committed(path).jobs).toBe(1);
  });
});

describe('outside a transaction', () => {
  it('commits by itself, emits the enqueue event, and wakes the workers', async () => {
    const { db } = appDatabase();
    const queue = queueOn({ database: db, jobs: [defineJob({ name: 'receipt', handler: async () => 'ok' })] });
    await queue.start();
    const enqueued = nextEvent(queue.events$, (e) => e.to === 'pending');
    const done = nextEvent(queue.events$, (e) => e.to === 'completed');
    const job = queue.enqueueSync('receipt', {});
    expect((await enqueued).job.id).toBe(job.id);
    expect((await done).job.id).toBe(job.id);
  });

  it('without a database, writes with the queue\'s own connection', async () => {
    const dir = tempDir();
    cleanups.push(() => dir.cleanup());
    const queue = queueOn({ path: join(dir.dir, 'jobs.db'), jobs: [defineJob({ name: 'receipt', handler: async () => 'ok' })] });
    await queue.start();
    const done = nextEvent(queue.events$, (e) => e.to === 'completed');
    const [a, b] = queue.enqueueManySync([
      { name: 'receipt', payload: {} },
      { name: 'receipt', payload: {}, options: { key: 'same' } },
    ]);
    expect(queue.enqueueSync('receipt', {}, { key: 'same' })).toEqual({ id: b!.id, created: false, state: 'pending' });
    expect([a!.id, b!.id]).toContain((await done).job.id);
  });

  it('wakes this process\'s claim loop itself: the job runs with no poll and no timer firing', async () => {
    const dir = tempDir();
    cleanups.push(() => dir.cleanup());
    // Timers on a clock that never moves: only the wake-up after enqueueSync can start a claim
    // (the queue's own connection wrote the job, so no change from another connection is seen either).
    const clock = createVirtualClock(Date.now());
    const queue = queueOn({ path: join(dir.dir, 'jobs.db'), clock, jobs: [defineJob({ name: 'receipt', handler: async () => 'ok' })] });
    await queue.start();
    await afterTurn();
    const done = nextEvent(queue.events$, (e) => e.to === 'completed');
    const job = queue.enqueueSync('receipt', {});
    expect((await done).job.id).toBe(job.id);
  });

  it('throws QueueClosedError once the queue is closed', async () => {
    const { db } = appDatabase();
    const queue = queueOn({ database: db });
    await queue.close();
    expect(() => queue.enqueueSync('receipt', {})).toThrow(expect.objectContaining({ code: 'LJ_ERR_QUEUE_CLOSED' }));
    expect(() => queue.enqueueManySync([])).toThrow(expect.objectContaining({ code: 'LJ_ERR_QUEUE_CLOSED' }));
    expect(db.open).toBe(true); // the application's connection stays the application's
  });

  it('throws a ValidationError once the application has closed its connection, and the queue works on', async () => {
    const { db } = appDatabase();
    const queue = queueOn({ database: db });
    db.close();
    expect(() => queue.enqueueSync('receipt', {})).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION', message: expect.stringContaining('closed') }));
    expect((await queue.enqueue('receipt', {})).created).toBe(true);
  });
});

describe('the application database', () => {
  it('is refused in memory, anonymous, read-only, closed, or naming another file than path', () => {
    const { path, db } = appDatabase();
    const refused = (o: Parameters<typeof createQueue>[0], text: string) =>
      expect(() => createQueue({ logger: silentLogger, ...o })).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION', message: expect.stringContaining(text) }));
    const memory = new Database(':memory:');
    const anonymous = new Database('');
    const readonly = new Database(path, { readonly: true });
    const closed = new Database(join(path, '..', 'closed.db'));
    closed.close();
    try {
      refused({ database: memory }, 'in-memory');
      refused({ database: anonymous }, 'in-memory');
      refused({ database: readonly }, 'read-only');
      refused({ database: closed }, 'closed');
      refused({ database: db, path: join(path, '..', 'other.db') }, 'different files');
      refused({ database: {} as never }, 'better-sqlite3 Database');
      expect(() => createQueue({ logger: silentLogger, database: db, store: {} as never })).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
    } finally {
      memory.close();
      anonymous.close();
      readonly.close();
    }
  });

  it('is accepted with path naming the same file; the file then opens by its path alone too', async () => {
    const { path, db } = appDatabase();
    const withPath = queueOn({ database: db, path: relative(process.cwd(), path) });
    withPath.enqueueSync('receipt', {});
    // A process with no database of its own (a worker) opens the shared file by its path.
    const byPath = queueOn({ path });
    expect((await byPath.stats()).total).toBe(1);
  });

  it('is put in WAL mode and given a busy timeout only when it had none', () => {
    const { db } = appDatabase();
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    db.pragma('busy_timeout = 0');
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push((JSON.parse(line) as { msg: string }).msg) });
    queueOn({ database: db, busyTimeout: 1234, logger });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('busy_timeout', { simple: true })).toBe(1234);
    expect(warnings).toEqual([expect.stringContaining('busy timeout')]);

    const other = appDatabase();
    other.db.pragma('busy_timeout = 250');
    queueOn({ database: other.db, busyTimeout: 1234 });
    expect(other.db.pragma('busy_timeout', { simple: true })).toBe(250); // the application's own setting stays
  });

  it('refuses a file whose application tables take litejobs\' names, or whose user_version the application uses', () => {
    const { path, db } = appDatabase();
    db.exec('CREATE TABLE jobs (id INTEGER PRIMARY KEY)');
    expect(() => createQueue({ logger: silentLogger, database: db })).toThrow(expect.objectContaining({ code: 'LJ_ERR_DATABASE_OPEN', message: expect.stringContaining("tables jobs have the names of litejobs' own") }));
    const copy = join(path, '..', 'versioned.db');
    copyFileSync(path, copy);
    const versioned = new Database(copy);
    cleanups.push(() => versioned.close());
    versioned.exec('DROP TABLE jobs');
    versioned.pragma('user_version = 12');
    expect(() => createQueue({ logger: silentLogger, database: versioned })).toThrow(expect.objectContaining({ code: 'LJ_ERR_DATABASE_OPEN', message: expect.stringContaining('user_version') }));
  });
});
