/**
 * The dashboard's change reads on PostgreSQL, where ids are handed out at
 * insert and rows commit in any order: a read never moves its cursor past a
 * row still in flight, however long its transaction stays open, moves past an
 * id that will never appear once the transactions that may hold it have
 * ended, and counts a slice as of its cursor, not of its snapshot.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '../../src/store/postgres/driver.js';
import type { ChangeBatch, ChangeCursor, Store } from '../../src/store/store.js';
import { createRequire } from 'node:module';
import { pgClient, pgUrl } from '../helpers/postgres.js';
import { claimOf, job, NOW, usePgStores } from './fixture.js';

const pg = usePgStores();
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.end();
});

/** A connection of its own, standing for another process's transaction. */
async function other(): Promise<Client> {
  const c = await pgClient();
  clients.push(c);
  return c;
}

const insertJob = (schema: string, name: string) =>
  `INSERT INTO "${schema}".jobs (name, state, payload, run_at, created_at, updated_at) VALUES ('${name}', 'pending', '{}', ${NOW}, ${NOW}, ${NOW})`;

const enqueuedIds = (b: ChangeBatch) => b.recent.filter((r) => r.event === 'job.enqueue').map((r) => r.id);
const ZERO: ChangeCursor = { jobId: 0, historyId: 0 };

describe('changes() on PostgreSQL', () => {
  it('stops below a job whose insert has not committed, and reads it once it has', async () => {
    const schema = pg.schema();
    const store = pg.open({ schema });
    await store.insert([job({ name: 'first' })], NOW);
    const slow = await other();
    await slow.query('BEGIN');
    await slow.query(insertJob(schema, 'slow')); // id 2, held open
    await store.insert([job({ name: 'fast' })], NOW); // id 3, committed

    const before = await store.changes!(ZERO, 100);
    expect(before.cursor.jobId).toBe(1);
    expect(enqueuedIds(before)).toEqual([1]);

    await slow.query('COMMIT');
    const after = await store.changes!(before.cursor, 100);
    expect(after.cursor.jobId).toBe(3);
    expect(enqueuedIds(after).sort()).toEqual([2, 3]);
    expect(after.enqueued.map((e) => e.name).sort()).toEqual(['fast', 'slow']);
  });

  it('stops below a history row in flight, and counts a slice as of its cursor', async () => {
    const schema = pg.schema();
    const store = pg.open({ schema });
    await store.insert([job(), job()], NOW); // jobs 1 and 2, pending
    const slow = await other();
    await slow.query('BEGIN');
    // History row 1 (of job 1, changing nothing), held open.
    await slow.query(`INSERT INTO "${schema}".job_history (job_id, from_state, to_state, event, at) VALUES (1, 'pending', 'pending', 'job.touch', ${NOW})`);
    const [claimed] = await claimOf(store, { limit: 1 }); // history row 2: a job goes processing, committed
    expect(claimed).toBeDefined();

    const first = await store.changes!({ jobId: 2, historyId: 0 }, 100, { countIds: { after: 0, upTo: 2 }, markIds: { after: 0, upTo: 2 } });
    expect(first.cursor).toEqual({ jobId: 2, historyId: 0 });
    expect(first.transitions).toEqual([]);
    // The snapshot holds the claim, the cursor does not: the count is the cursor's.
    expect(first.counts).toEqual([{ state: 'pending', name: 'a', count: 2 }]);

    await slow.query('COMMIT');
    const next = await store.changes!(first.cursor, 100);
    expect(next.cursor.historyId).toBe(2);
    expect(next.transitions.map((t) => t.event).sort()).toEqual(['job.claim', 'job.touch']);
    // Count plus the changes after its cursor: the store's counts now.
    expect(await store.stats()).toMatchObject({ byState: { pending: 1, processing: 1 } });
  });

  it('cursorAt() stops below a job in flight too, however late the time asked', async () => {
    const schema = pg.schema();
    const store = pg.open({ schema });
    await store.insert([job()], NOW);
    const slow = await other();
    await slow.query('BEGIN');
    await slow.query(insertJob(schema, 'slow')); // id 2, held open
    await store.insert([job()], NOW); // id 3, committed
    expect((await store.cursorAt!(NOW + 1)).jobId).toBe(1);
    await slow.query('COMMIT');
  });

  it('moves past an id that never commits as soon as the transaction that took it has ended', async () => {
    const schema = pg.schema();
    const store: Store = pg.open({ schema });
    await store.insert([job({ name: 'first' })], NOW);
    const aborted = await other();
    await aborted.query('BEGIN');
    await aborted.query(insertJob(schema, 'aborted')); // id 2, never to be seen
    await aborted.query('ROLLBACK');
    await store.insert([job({ name: 'after' })], NOW); // id 3

    // The read that first sees the gap waits (a transaction that ended just then is in the next snapshot); the next passes it.
    const first = await store.changes!(ZERO, 100);
    expect(first).toMatchObject({ cursor: { jobId: 1 }, held: true });
    // Other test files' transactions in this database, open at that read, hold it too until they end: read until it passes.
    const seen = [...enqueuedIds(first)];
    let cursor = first.cursor;
    for (const end = Date.now() + 20_000; cursor.jobId < 3 && Date.now() < end; ) {
      const next = await store.changes!(cursor, 100);
      seen.push(...enqueuedIds(next));
      cursor = next.cursor;
      if (cursor.jobId < 3) await new Promise((r) => setTimeout(r, 20));
    }
    expect(cursor.jobId).toBe(3);
    expect(seen).toEqual([1, 3]);
  });

  it("is not held back by another database's open transactions", async () => {
    const schema = pg.schema();
    const store: Store = pg.open({ schema });
    await store.insert([job({ name: 'first' })], NOW);
    // A transaction holding an id in another database of the cluster, open for the whole test.
    const url = new URL(pgUrl());
    url.pathname = '/postgres';
    const foreign = new (createRequire(import.meta.url)('pg').Client)({ connectionString: url.toString() }) as Client;
    await foreign.connect();
    clients.push(foreign);
    await foreign.query('BEGIN');
    await foreign.query('SELECT pg_current_xact_id()');
    const aborted = await other();
    await aborted.query('BEGIN');
    await aborted.query(insertJob(schema, 'aborted')); // id 2, never to be seen
    await aborted.query('ROLLBACK');
    await store.insert([job({ name: 'after' })], NOW); // id 3
    // Read until the cursor passes job 3: the foreign transaction stays open all along, so a reader it held back
    // would never get there. Other sessions on this database (tests beside this one) may hold it a moment.
    let cursor = ZERO;
    for (const until = Date.now() + 10_000; cursor.jobId < 3 && Date.now() < until; ) {
      cursor = (await store.changes!(cursor, 100)).cursor;
      if (cursor.jobId < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(cursor.jobId).toBe(3);
    await foreign.query('ROLLBACK');
  });

  it('waits for a transaction whose id is newer than the snapshot knows of, though it took the lower job id', async () => {
    const schema = pg.schema();
    const store: Store = pg.open({ schema });
    await store.ping();
    const b = await other();
    const a = await other();
    await b.query('BEGIN');
    await b.query('SELECT pg_current_xact_id()'); // B's transaction id first (the application wrote something else first)
    await a.query('BEGIN');
    await a.query(insertJob(schema, 'a')); // job 1, under a later transaction id, held open
    await b.query(insertJob(schema, 'b')); // job 2
    await b.query('COMMIT');
    // B has ended and A's id is past every snapshot's xmax: only the list of transactions holding an id tells of A.
    let cursor = ZERO;
    for (let i = 0; i < 3; i++) {
      const batch = await store.changes!(cursor, 100, { feed: true });
      expect(batch.recent).toEqual([]);
      cursor = batch.cursor;
    }
    await a.query('COMMIT');
    const seen: string[] = [];
    for (let i = 0; i < 3 && seen.length < 2; i++) {
      const batch = await store.changes!(cursor, 100, { feed: true });
      seen.push(...batch.recent.map((r) => `${r.id} ${r.name}`));
      cursor = batch.cursor;
    }
    expect(seen).toEqual(['1 a', '2 b']);
  });

  it('waits for a transaction that holds an id for as long as it stays open (no grace period passes it)', async () => {
    const schema = pg.schema();
    const store: Store = pg.open({ schema });
    await store.ping(); // creates the tables
    const slow = await other();
    await slow.query('BEGIN');
    await slow.query(insertJob(schema, 'slow')); // id 1, held open
    await store.insert([job({ name: 'fast' })], NOW); // id 2, committed
    const first = await store.changes!(ZERO, 100);
    expect(first.cursor.jobId).toBe(0);
    expect(first.held).toBe(true);
    // Longer than any grace period a reader could allow.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    // Job 2 moves meanwhile: its move waits for its creation, which waits for job 1. Held, not more to read at once.
    expect(await claimOf(store, { names: ['fast'], limit: 1 })).toHaveLength(1);
    const still = await store.changes!(first.cursor, 100, { feed: true });
    expect(still).toMatchObject({ cursor: { jobId: 0 }, recent: [], more: false, held: true });
    await slow.query('COMMIT');
    const after = await store.changes!(first.cursor, 100, { feed: true });
    expect(after.recent.map((r) => `${r.id} ${r.name} ${r.event}`)).toEqual(['1 slow job.enqueue', '2 fast job.enqueue', '2 fast job.claim']);
    expect(after.held).toBeFalsy();
  });
});
