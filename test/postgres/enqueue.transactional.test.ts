/**
 * Enqueue inside the caller's own transaction on PostgreSQL: the job commits
 * or rolls back with the caller's writes, other connections see it only after
 * the commit, workers (of this very queue too) hear of it at the commit, and
 * bad clients are refused before anything is written.
 */
import Database from 'better-sqlite3';
import { createRequire } from 'node:module';
import { afterEach, expect, it } from 'vitest';
import { createQueue, createVirtualClock, defineJob, type Queue } from '../../src/index.js';
import type { Client } from '../../src/store/postgres/driver.js';
import { blockedBy, pgClient, pgUrl, usePgSchema } from '../helpers/postgres.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';
import { job, NOW, usePgStores } from './fixture.js';

const schema = usePgSchema();
const stores = usePgStores();
const open: Array<Queue | Client> = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await ('stop' in x ? x.close() : x.end());
});

async function appClient(ddl?: string): Promise<Client> {
  const client = await pgClient();
  open.push(client);
  if (ddl) await client.query(ddl);
  return client;
}

function queueOn(s: string, o: Parameters<typeof createQueue>[0] = {}): Queue {
  const q = createQueue({ connection: pgUrl(), schema: s, logger: silentLogger, ...o });
  open.push(q);
  return q;
}

it('commits with the caller: invisible to others until COMMIT, then run by a worker', async () => {
  const s = schema();
  const ran: number[] = [];
  const worker = queueOn(s, { jobs: [defineJob({ name: 'email', handler: async (p: { order: number }) => void ran.push(p.order) })] });
  const producer = queueOn(s);
  const app = await appClient(`CREATE TABLE "${s}_orders" (id int PRIMARY KEY)`);
  await producer.stats(); // migrated before the caller's transaction starts
  await worker.start();

  await app.query('BEGIN');
  await app.query(`INSERT INTO "${s}_orders" VALUES (42)`);
  const r = await producer.enqueue('email', { order: 42 }, { client: app, key: 'order:42' });
  expect(r).toEqual({ id: expect.any(Number), created: true, state: 'pending' });
  await expect(producer.getJob(r.id)).rejects.toMatchObject({ code: 'LJ_ERR_JOB_NOT_FOUND' }); // another connection: not yet committed
  await app.query('COMMIT');

  await expect.poll(() => ran, { timeout: 20_000 }).toEqual([42]);
  await expect.poll(async () => (await producer.getJob(r.id)).state, { timeout: 20_000 }).toBe('completed');
});

it('rolls back with the caller: no job, no history, nothing left', async () => {
  const s = schema();
  const q = queueOn(s);
  const app = await appClient(`CREATE TABLE "${s}_orders" (id int PRIMARY KEY)`);
  await q.stats();
  await app.query('BEGIN');
  await app.query(`INSERT INTO "${s}_orders" VALUES (7)`);
  const one = await q.enqueue('email', { order: 7 }, { client: app });
  const many = await q.enqueueMany(
    [
      { name: 'email', payload: { order: 7, n: 1 } },
      { name: 'sms', payload: { order: 7, n: 2 }, options: { delay: 60_000 } },
    ],
    { client: app },
  );
  expect(many.map((m) => m.id)).toEqual([one.id + 1, one.id + 2]);
  await app.query('ROLLBACK');

  expect((await q.stats()).total).toBe(0);
  await expect(q.history(one.id)).rejects.toMatchObject({ code: 'LJ_ERR_JOB_NOT_FOUND' });
  const rows = await app.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${s}".job_history`);
  expect(rows.rows[0]!.n).toBe(0);
  // The ids of the rolled-back jobs are not reused, and a key they held is free again.
  await q.enqueue('email', { order: 7 }, { key: 'order:7' });
  expect((await q.enqueue('email', { order: 7 }, { key: 'order:7' })).created).toBe(false);
});

it('dedupes keys against committed jobs and within the caller transaction', async () => {
  const s = schema();
  const q = queueOn(s);
  const first = await q.enqueue('email', { n: 1 }, { key: 'k' });
  const app = await appClient();
  await app.query('BEGIN');
  const again = await q.enqueue('email', { n: 2 }, { client: app, key: 'k' });
  const pair = await q.enqueueMany(
    [
      { name: 'email', payload: { n: 3 }, options: { key: 'new' } },
      { name: 'email', payload: { n: 4 }, options: { key: 'new' } },
    ],
    { client: app },
  );
  await app.query('COMMIT');
  expect(again).toEqual({ id: first.id, created: false, state: 'pending' });
  expect(pair[1]).toEqual({ id: pair[0]!.id, created: false, state: 'pending' });
  expect((await q.stats()).total).toBe(2);
});

it("wakes the store's own listener at the caller's commit (its own inserts do not)", async () => {
  const store = stores.open();
  await store.ping();
  expect(store.externalChange()).toBe(false); // starts the listener
  let woken = 0;
  const stop = store.watchChanges!(() => woken++);
  const admin = await appClient();
  await expect
    .poll(async () => (await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'litejobs listen'`)).rows[0]!.n, { timeout: 20_000 })
    .toBeGreaterThan(0);
  const app = await appClient();
  await app.query('BEGIN');
  const [r] = await store.insertVia!(app, [job()], NOW);
  expect(typeof r!.id).toBe('number'); // the caller's driver reads int8 as text; the store hands back a number
  await app.query('COMMIT');
  await expect.poll(() => woken, { timeout: 20_000 }).toBeGreaterThan(0);
  stop();
});

it('refuses a pool, a non-client and a SQLite queue, and maps a failed transaction to a DatabaseError', async () => {
  const s = schema();
  const q = queueOn(s);
  const { Pool } = createRequire(import.meta.url)('pg') as { Pool: new (c: { connectionString: string }) => { end(): Promise<void> } };
  const pool = new Pool({ connectionString: pgUrl() });
  try {
    await expect(q.enqueue('email', {}, { client: pool as never })).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION', message: expect.stringContaining('Pool') });
  } finally {
    await pool.end();
  }
  await expect(q.enqueue('email', {}, { client: {} as never })).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
  await expect(q.enqueueMany([{ name: 'email', payload: {} }], { client: undefined, other: 1 } as never)).rejects.toMatchObject({ code: 'LJ_ERR_UNKNOWN_OPTION' });
  await expect(q.enqueueMany([{ name: 'email', payload: {}, options: { client: {} } as never }])).rejects.toMatchObject({ code: 'LJ_ERR_UNKNOWN_OPTION' });

  const app = await appClient();
  await app.query('BEGIN');
  await app.query('SELECT 1').then(() => app.query('SELECT 1/0')).catch(() => undefined); // the transaction is now aborted
  await expect(q.enqueue('email', {}, { client: app })).rejects.toMatchObject({ name: 'DatabaseError', code: 'LJ_ERR_DATABASE' });
  await app.query('ROLLBACK');
  expect((await q.stats()).total).toBe(0);

  const file = tempDbPath();
  const lite = createQueue({ path: file.path, logger: silentLogger });
  try {
    await expect(lite.enqueue('email', {}, { client: app })).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION', message: expect.stringContaining('PostgreSQL') });
    expect((await lite.stats()).total).toBe(0);
  } finally {
    await lite.close();
    file.cleanup();
  }
});

it('a unique key taken inside the caller\'s transaction is held from its commit, and not at all after a rollback', async () => {
  const s = schema();
  const q = queueOn(s);
  const app = await appClient();
  await q.stats();
  const unique = { key: 'order:7', while: 'until-finished' } as const;

  await app.query('BEGIN');
  const first = await q.enqueue('email', { try: 1 }, { client: app, unique });
  expect(first.created).toBe(true);
  // Within the same transaction the key is held.
  expect(await q.enqueueMany([{ name: 'email', payload: { try: 2 }, options: { unique } }], { client: app })).toEqual([{ id: first.id, created: false, state: 'pending' }]);
  await app.query('ROLLBACK');

  const after = await q.enqueue('email', { try: 3 }, { unique });
  expect(after.created).toBe(true);
  await app.query('BEGIN');
  expect(await q.enqueue('email', { try: 4 }, { client: app, unique })).toEqual({ id: after.id, created: false, state: 'pending' });
  await app.query('COMMIT');
});

it('enqueueMany with the caller\'s client commits with it: every job, once, visible after COMMIT', async () => {
  const s = schema();
  const q = queueOn(s);
  const app = await appClient();
  await q.stats();
  await app.query('BEGIN');
  const results = await q.enqueueMany(
    [
      { name: 'email', payload: { n: 1 } },
      { name: 'email', payload: { n: 2 }, options: { unique: { key: 'u' } } },
    ],
    { client: app },
  );
  expect((await q.stats()).total).toBe(0); // the queue's own connections: not yet committed
  await app.query('COMMIT');
  expect((await q.listJobs()).map((j) => [j.id, j.payload])).toEqual(results.map((r, i) => [r.id, { n: i + 1 }]));
});

it('has no synchronous enqueue: enqueueSync, enqueueManySync and a database option throw LJ_ERR_NOT_SUPPORTED, pointing to { client }', async () => {
  const s = schema();
  const q = queueOn(s);
  const notSupported = { name: 'NotSupportedError', code: 'LJ_ERR_NOT_SUPPORTED', message: expect.stringContaining('{ client }') };
  expect(() => q.enqueueSync('email', {})).toThrow(expect.objectContaining(notSupported));
  // Before any check of the input: the store is what cannot do it.
  expect(() => q.enqueueManySync([{ name: 'email', payload: {}, options: { delay: -1 } }])).toThrow(expect.objectContaining(notSupported));
  const file = tempDbPath();
  const db = new Database(file.path);
  try {
    expect(() => createQueue({ connection: pgUrl(), schema: s, database: db, logger: silentLogger })).toThrow(expect.objectContaining(notSupported));
  } finally {
    db.close();
    file.cleanup();
  }
  expect((await q.stats()).total).toBe(0);
  await q.close();
  expect(() => q.enqueueSync('email', {})).toThrow(expect.objectContaining({ code: 'LJ_ERR_QUEUE_CLOSED' }));
});

it('a throttle holder whose insert commits after its window ends does not swallow the enqueue that waited for it', async () => {
  const s = schema();
  const START = Date.parse('2026-06-01T00:00:00Z');
  const holderClock = createVirtualClock(START);
  const holderQueue = queueOn(s, { clock: holderClock });
  const lateClock = createVirtualClock(START + 1200);
  const lateQueue = queueOn(s, { clock: lateClock });
  await lateQueue.stats(); // the schema exists before the caller's transaction takes locks in it
  const app = await appClient();
  await app.query('BEGIN');
  // The holder's window is START … START + 500; its insert stays uncommitted past that.
  const holder = await holderQueue.enqueue('sync', { n: 1 }, { client: app, throttle: { key: 'acct-1', ms: 500 } });
  expect(holder.created).toBe(true);
  // 1.2 s later (on its own clock) another enqueue with the key waits on the holder's uncommitted row …
  const late = lateQueue.enqueue('sync', { n: 2 }, { throttle: { key: 'acct-1', ms: 500 } });
  await blockedBy(app);
  await app.query('COMMIT');
  // … and, the window being over when it was made, makes a job of its own.
  const r = await late;
  expect(r.created).toBe(true);
  expect(r.id).not.toBe(holder.id);
  // An enqueue inside the window still gets the holder back.
  const insideClock = createVirtualClock(START + 1300);
  const inside = await queueOn(s, { clock: insideClock }).enqueue('sync', { n: 3 }, { throttle: { key: 'acct-1', ms: 500 } });
  expect(inside).toMatchObject({ id: r.id, created: false });
});

it('createQueue({ connection }) takes the schema from the URL\'s ?schema=, as the CLI\'s --db does', async () => {
  const s = schema();
  const url = new URL(pgUrl());
  url.searchParams.set('schema', s);
  const q = createQueue({ connection: url.toString(), logger: silentLogger });
  open.push(q);
  const { id } = await q.enqueue('in-url-schema', {});
  const app = await appClient();
  const { rows } = await app.query<{ n: string }>(`SELECT count(*) AS n FROM "${s}".jobs WHERE id = $1`, [id]);
  expect(Number(rows[0]!.n)).toBe(1);
  expect(() => createQueue({ connection: url.toString(), schema: 'elsewhere', logger: silentLogger })).toThrow(/two schemas/);
  // The same schema named twice is no conflict.
  const same = createQueue({ connection: url.toString(), schema: s, logger: silentLogger });
  open.push(same);
  expect((await same.getJob(id)).name).toBe('in-url-schema');
});

it("goes through while a watch looks for where now is: the caller's transaction may hold what that look waits on", async () => {
  const s = schema();
  const inner = createQueue({ connection: pgUrl(), schema: s, logger: silentLogger });
  open.push(inner);
  await inner.stats(); // migrated
  const store = (await import('../../src/store/postgres/postgres-store.js')).createPostgresStore({ connection: pgUrl(), schema: s, poolSize: 2, history: true });
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const producer = createQueue({ logger: silentLogger, store: { ...store, changes: async (...args: Parameters<NonNullable<typeof store.changes>>) => {
    await held;
    return store.changes!(...args);
  } } });
  open.push(producer);
  const app = await appClient();
  const watching = producer.watch().subscribe();
  try {
    await app.query('BEGIN');
    const r = await producer.enqueue('email', { order: 7 }, { client: app });
    await app.query('COMMIT');
    expect(r.created).toBe(true);
  } finally {
    release();
    watching.unsubscribe();
  }
});
