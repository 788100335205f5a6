/**
 * The PostgreSQL store, method by method, against a real server: each test
 * states what the SQLite store guarantees and checks this store keeps it.
 */
import { describe, expect, it } from 'vitest';
import { DatabaseError, QueueClosedError, ValidationError } from '../../src/errors.js';
import { createPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { WHOLE_QUEUE } from '../../src/store/paused.js';
import { migrations } from '../../src/store/postgres/sql.js';
import { pgClient, pgUrl } from '../helpers/postgres.js';
import { claimOf, job, move, NOW, usePgStores } from './fixture.js';

const pg = usePgStores();

describe('opening', () => {
  it('refuses a schema name it would have to quote, at once', () => {
    for (const schema of ['Jobs', 'a-b', '1abc', 'x"; drop table jobs; --', 'a'.repeat(64)]) {
      expect(() => createPostgresStore({ connection: pgUrl(), schema, history: true })).toThrow(ValidationError);
    }
  });

  it('connects on first use; a failed connection rejects that call with LJ_ERR_DATABASE_OPEN and the next call tries again', async () => {
    const schema = pg.schema();
    // A table in the way makes the migration fail, as an unreachable server would, but it can be cleared.
    const admin = await pgClient();
    await admin.query(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".jobs (x int)`);
    const store = pg.open({ schema });
    const failed = await store.stats().catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(DatabaseError);
    expect((failed as DatabaseError).code).toBe('LJ_ERR_DATABASE_OPEN');
    await admin.query(`DROP TABLE "${schema}".jobs`);
    await admin.end();
    expect((await store.stats()).total).toBe(0);
  });

  it('an unreachable server is LJ_ERR_DATABASE_OPEN with the driver error as the cause', async () => {
    const store = pg.open({ connection: 'postgres://postgres@127.0.0.1:1/test' });
    const err = (await store.ping().catch((e: unknown) => e)) as DatabaseError;
    expect(err).toBeInstanceOf(DatabaseError);
    expect(err.code).toBe('LJ_ERR_DATABASE_OPEN');
    // Out of reach, not refused: the cause says so, and carries the driver's error.
    expect(err.cause).toMatchObject({ code: 'LJ_ERR_DATABASE_UNAVAILABLE', cause: expect.objectContaining({ code: 'ECONNREFUSED' }) });
  });

  it('processes opening one new schema at once migrate it once', async () => {
    const schema = pg.schema();
    const stores = Array.from({ length: 4 }, () => pg.open({ schema }));
    await Promise.all(stores.map((s) => s.ping()));
    const admin = await pgClient();
    const { rows } = await admin.query<{ value: number }>(`SELECT value FROM "${schema}".queue_meta WHERE key = 'migration_level'`);
    await admin.end();
    // One row, at the newest migration's level.
    expect(rows.map((r) => Number(r.value))).toEqual([migrations(schema).at(-1)!.level]);
  });

  it('a query failure after opening is LJ_ERR_DATABASE; a closed store refuses calls', async () => {
    const schema = pg.schema();
    const store = pg.open({ schema });
    await store.ping();
    const admin = await pgClient();
    await admin.query(`DROP TABLE "${schema}".job_history`);
    await admin.end();
    const err = (await store.history(1).catch((e: unknown) => e)) as DatabaseError;
    expect(err).toBeInstanceOf(DatabaseError);
    expect(err.code).toBe('LJ_ERR_DATABASE');
    expect(err.message).toContain('42P01');
    await store.close();
    await expect(store.ping()).rejects.toBeInstanceOf(QueueClosedError);
  });
});

describe('insert', () => {
  it('returns results in input order; a key already taken, in this batch or before, hands back the first job and its state', async () => {
    const store = pg.open();
    const [first] = await store.insert([job({ key: 'k1' })], NOW);
    expect(first).toEqual({ id: expect.any(Number), created: true, state: 'pending' });
    await claimOf(store);
    const got = await store.insert([job(), job({ key: 'k1' }), job({ key: 'k2' }), job({ key: 'k2' }), job()], NOW);
    expect(got.map((r) => r.created)).toEqual([true, false, true, false, true]);
    expect(got[1]).toEqual({ id: first!.id, created: false, state: 'processing' });
    expect(got[3]).toEqual({ id: got[2]!.id, created: false, state: 'pending' });
    expect(got[0]!.id).toBeLessThan(got[2]!.id);
    expect(got[2]!.id).toBeLessThan(got[4]!.id);
    expect((await store.stats()).total).toBe(4);
  });

  it('stores JSON text byte for byte and every time as a number', async () => {
    const store = pg.open();
    const payload = '{ "b": 1,  "a": [1.50, "é"] }';
    const [r] = await store.insert([job({ payload, retry: '{"attempts": 2}', timeout: 30_000, runAt: 2 ** 45 })], 2 ** 45 - 1);
    const row = (await store.get(r!.id))!;
    expect(row).toMatchObject({ payload, retry: { attempts: 2 }, timeout: 30_000, runAt: 2 ** 45, createdAt: 2 ** 45 - 1 });
    expect(typeof row.id).toBe('number');
  });
});

describe('claim', () => {
  it('takes due jobs of the names asked for, by priority, then due time, then id, up to the limit', async () => {
    const store = pg.open();
    const ids = (await store.insert([job({ runAt: NOW - 5 }), job({ priority: 3 }), job({ runAt: NOW - 9 }), job({ name: 'b', priority: 9 }), job({ runAt: NOW + 1 }), job({ priority: 3 })], NOW)).map((r) => r.id);
    const first = await claimOf(store, { limit: 3 });
    expect(first.map((j) => j.id)).toEqual([ids[1], ids[5], ids[2]]);
    expect(first[0]).toMatchObject({ state: 'processing', attempts: 1, leaseOwner: 'w1', lockedUntil: NOW + 1000, updatedAt: NOW });
    const rest = await claimOf(store, { limit: 3 });
    expect(rest.map((j) => j.id)).toEqual([ids[0]]);
    expect(rest[0]!.leaseToken).not.toBe(first[0]!.leaseToken);
    expect(await claimOf(store)).toEqual([]);
    expect((await claimOf(store, { now: NOW + 1 })).map((j) => j.id)).toEqual([ids[4]]);
  });

  it('leaves paused names alone, and everything while the whole queue is paused', async () => {
    const store = pg.open();
    const [a, b] = await store.insert([job({ name: 'a' }), job({ name: 'b' })], NOW);
    await store.setPaused('a', true, NOW);
    await store.setPaused('a', true, NOW + 1);
    expect(await store.paused()).toEqual(['a']);
    expect((await claimOf(store, { names: ['a', 'b'], limit: 1 })).map((j) => j.id)).toEqual([b!.id]);
    await store.setPaused(WHOLE_QUEUE, true, NOW);
    await store.setPaused('a', false, NOW);
    expect(await store.paused()).toEqual([WHOLE_QUEUE]);
    expect(await claimOf(store, { names: ['a', 'b'] })).toEqual([]);
    await store.setPaused(WHOLE_QUEUE, false, NOW);
    expect((await claimOf(store, { names: ['a', 'b'] })).map((j) => j.id)).toEqual([a!.id]);
  });
});

describe('transition', () => {
  it.each([
    ['one statement (distinct jobs)', false],
    ['request by request (a job named twice)', true],
  ])('is a compare-and-set on state and lease token: %s', async (_, twice) => {
    const store = pg.open();
    const [x, y, z] = await store.insert([job(), job(), job()], NOW);
    const [cx, cy, cz] = await claimOf(store);
    const reqs = [
      move({ id: x!.id, version: cx!.version, from: 'processing', token: 'not-the-token', to: 'completed' }),
      move({ id: z!.id, version: cz!.version, from: 'pending', token: cz!.leaseToken, to: 'completed' }),
      move({ id: y!.id, version: cy!.version, from: 'processing', token: cy!.leaseToken, to: 'failed', runAt: NOW + 500, lastError: { name: 'Error', message: 'boom' }, ctx: { retryDelay: 500 }, result: '"r"' }),
      // Named twice: the second sees the first's move, and misses.
      ...(twice ? [move({ id: y!.id, version: cy!.version, from: 'processing', token: cy!.leaseToken, to: 'completed' })] : []),
    ];
    expect((await store.transition(reqs)).moved).toEqual(twice ? [false, false, true, false] : [false, false, true]);
    expect(await store.get(z!.id)).toMatchObject({ state: 'processing', leaseToken: cz!.leaseToken });
    expect(await store.get(x!.id)).toMatchObject({ state: 'processing', leaseToken: cx!.leaseToken });
    expect(await store.get(y!.id)).toMatchObject({
      state: 'failed', runAt: NOW + 500, lastError: { message: 'boom' }, ctx: { retryDelay: 500 }, result: '"r"', leaseToken: null, leaseOwner: null, lockedUntil: null, updatedAt: NOW + 10,
    });
    // A job that holds no lease moves with token null; a move into processing keeps the lease.
    expect((await store.transition([move({ id: y!.id, version: cy!.version + 1, from: 'failed', token: null, to: 'pending', event: 'job.retry' })])).moved).toEqual([true]);
    expect(await store.get(y!.id)).toMatchObject({ state: 'pending', runAt: NOW + 500, result: '"r"' });
    expect((await store.transition([move({ id: x!.id, version: cx!.version, from: 'processing', token: cx!.leaseToken, to: 'processing', event: 'job.custom' })])).moved).toEqual([true]);
    expect(await store.get(x!.id)).toMatchObject({ state: 'processing', leaseToken: cx!.leaseToken, leaseOwner: 'w1', lockedUntil: NOW + 1000, version: cx!.version + 1 });
    // Same state, same lease token: only the version tells the old read from the current one.
    const complete = (version: number) => move({ id: x!.id, version, from: 'processing', token: cx!.leaseToken, to: 'completed' });
    expect((await store.transition([complete(cx!.version)])).moved).toEqual([false]);
    expect(await store.get(x!.id)).toMatchObject({ state: 'processing', version: cx!.version + 1 });
    expect((await store.transition([complete(cx!.version + 1)])).moved).toEqual([true]);
    expect(await store.get(x!.id)).toMatchObject({ state: 'completed', version: cx!.version + 2 });
  });

  it.each([false, true])('purge deletes the job under the same check, keeps its outcome and history until trimmed, and counts the deletion (a job named twice: %s)', async (twice) => {
    const schema = pg.schema();
    const store = pg.open({ schema });
    const [x, y] = await store.insert([job(), job()], NOW);
    const [cx] = await claimOf(store, { limit: 1 });
    const reqs = [
      move({ id: x!.id, version: cx!.version, from: 'processing', token: 'stale', to: 'completed', purge: true }),
      move({ id: x!.id, version: cx!.version, from: 'processing', token: cx!.leaseToken, to: 'completed', purge: true, result: '"done"' }),
      move({ id: y!.id, version: 0, from: 'pending', token: null, to: 'cancelled', event: 'job.cancel' }),
    ];
    expect((await store.transition(twice ? reqs : reqs.slice(1))).moved).toEqual(twice ? [false, true, true] : [true, true]);
    expect(await store.get(x!.id)).toBeUndefined();
    expect(await store.outcome(x!.id)).toMatchObject({ id: x!.id, name: 'a', state: 'completed', result: '"done"', lastError: null });
    const admin = await pgClient();
    const history = async () => Number((await admin.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".job_history WHERE job_id = $1`, [x!.id])).rows[0]!.n);
    const deleted = await admin.query<{ value: string }>(`SELECT value FROM "${schema}".queue_meta WHERE key = 'deleted'`);
    try {
      // The claim and the completion stay with the outcome, and go with it.
      expect(await history()).toBe(2);
      expect(Number(deleted.rows[0]!.value)).toBe(1);
      expect(await store.trimOutcomes(NOW, 10)).toBe(0);
      expect(await store.trimOutcomes(NOW + 1000, 10)).toBe(1);
      expect(await history()).toBe(0);
      expect(await store.outcome(x!.id)).toBeUndefined();
    } finally {
      await admin.end();
    }
  });
});

describe('history', () => {
  it('starts with the creation entry from the job row, then every transition with its candidate, worker and error', async () => {
    const store = pg.open();
    const [x] = await store.insert([job()], NOW - 100);
    const [c] = await claimOf(store);
    const error = { name: 'Error', message: 'boom' };
    (await store.transition([move({ id: x!.id, version: c!.version, from: 'processing', token: c!.leaseToken, to: 'failed', event: 'job.fail', candidate: 2, workerId: 'w1:0', error })])).moved;
    expect(await store.history(x!.id)).toEqual([
      { from: null, to: 'pending', event: 'job.enqueue', at: NOW - 100 },
      { from: 'pending', to: 'processing', event: 'job.claim', at: NOW, workerId: 'w1', leaseToken: c!.leaseToken },
      { from: 'processing', to: 'failed', event: 'job.fail', candidate: 2, at: NOW + 10, workerId: 'w1:0', leaseToken: c!.leaseToken, error },
    ]);
    expect(await store.history(9999)).toEqual([]);
  });

  it('records nothing but the creation entry when history is off', async () => {
    const store = pg.open({ history: false });
    const [x] = await store.insert([job()], NOW);
    const [c] = await claimOf(store);
    (await store.transition([move({ id: x!.id, version: c!.version, from: 'processing', token: c!.leaseToken, to: 'completed' })])).moved;
    expect((await store.history(x!.id)).map((h) => h.event)).toEqual(['job.enqueue']);
  });
});

describe('leases and due jobs', () => {
  it('heartbeat and progress need the lease; expired leases are found by name', async () => {
    const store = pg.open();
    const [x] = await store.insert([job(), job({ name: 'b' })], NOW);
    const [c] = await claimOf(store, { names: ['a', 'b'], limit: 2 });
    expect(await store.heartbeat(x!.id, 'wrong', NOW + 5000)).toBe(false);
    expect(await store.heartbeat(x!.id, c!.leaseToken, NOW + 5000)).toBe(true);
    expect(await store.heartbeat(x!.id, c!.leaseToken, NOW + 10)).toBe(true); // never shortens
    expect(await store.progress(x!.id, c!.leaseToken, '0.5', NOW)).toBe(true);
    expect(await store.progress(x!.id, 'wrong', '0.9', NOW)).toBe(false);
    expect(await store.get(x!.id)).toMatchObject({ lockedUntil: NOW + 5000, progress: '0.5' });
    expect((await store.expiredLeases(['a', 'b'], NOW + 2000, 10)).map((j) => j.name)).toEqual(['b']);
    expect((await store.expiredLeases(['a', 'b'], NOW + 6000, 10)).map((j) => j.name)).toEqual(['b', 'a']);
    expect(await store.expiredLeases(['a'], NOW + 2000, 10)).toEqual([]);
    expect((await store.diagnose({ integrity: true, now: NOW + 2000 })).expiredLeases).toBe(1);
  });

  it('dueJobs and nextDueAt see delayed pending jobs and waiting states, as the SQLite store does', async () => {
    const store = pg.open();
    const [due, later, other] = await store.insert([job(), job({ runAt: NOW + 200 }), job({ name: 'b', runAt: NOW + 50 })], NOW);
    expect(await store.nextDueAt(['a'], ['pending', 'failed'])).toBe(NOW + 200);
    expect(await store.nextDueAt(['b'], ['pending'])).toBe(NOW + 50);
    expect(await store.nextDueAt(['c'], ['pending', 'failed'])).toBeNull();
    const [c] = await claimOf(store, { limit: 1 });
    expect(c!.id).toBe(due!.id);
    (await store.transition([move({ id: due!.id, version: c!.version, from: 'processing', token: c!.leaseToken, to: 'failed', runAt: NOW + 100 })])).moved;
    expect(await store.nextDueAt(['a'], ['failed'])).toBe(NOW + 100);
    expect(await store.dueJobs(['a'], ['failed'], NOW + 99, 10)).toEqual([]);
    expect((await store.dueJobs(['a', 'b'], ['failed'], NOW + 100, 10)).map((j) => j.id)).toEqual([due!.id]);
    // Pending jobs are claimed, never "due": as in the SQLite store, dueJobs reads waiting states only.
    expect(await store.dueJobs(['a', 'b'], ['pending'], NOW + 1000, 10)).toEqual([]);
    expect([later, other].every(Boolean)).toBe(true);
  });
});

describe('reads', () => {
  it('list pages by id with state and name filters; stats count by state and name', async () => {
    const store = pg.open();
    const ids = (await store.insert(Array.from({ length: 7 }, (_, i) => job({ name: i % 2 ? 'b' : 'a' })), NOW)).map((r) => r.id);
    const page1 = await store.list({ limit: 3 });
    const page2 = await store.list({ limit: 3, after: page1.at(-1)!.id });
    const page3 = await store.list({ limit: 3, after: page2.at(-1)!.id });
    expect([...page1, ...page2, ...page3].map((j) => j.id)).toEqual(ids);
    expect((await store.list({ name: 'b' })).map((j) => j.id)).toEqual([ids[1], ids[3], ids[5]]);
    await claimOf(store, { limit: 2 });
    expect((await store.list({ state: 'processing', name: 'a' })).map((j) => j.id)).toEqual([ids[0], ids[2]]);
    expect(await store.stats()).toEqual({ total: 7, byState: { pending: 5, processing: 2 }, byName: { a: { pending: 2, processing: 2 }, b: { pending: 3 } } });
  });

  it('purgeFinished deletes old finished jobs of one state with their history, up to the limit, and counts them', async () => {
    const schema = pg.schema();
    const store = pg.open({ schema });
    const ids = (await store.insert([job(), job(), job(), job()], NOW)).map((r) => r.id);
    const claimed = await claimOf(store);
    (await store.transition(claimed.map((c, i) => move({ id: c.id, version: c.version, from: 'processing', token: c.leaseToken, to: i === 3 ? 'dead' : 'completed', at: NOW + i })))).moved;
    expect(await store.purgeFinished('completed', NOW + 2, 10)).toBe(2);
    expect(await store.purgeFinished('completed', NOW + 2, 10)).toBe(0);
    expect(await store.purgeFinished('completed', NOW + 100, 10)).toBe(1);
    expect((await store.list({})).map((j) => j.id)).toEqual([ids[3]]);
    const admin = await pgClient();
    const deleted = await admin.query<{ value: string }>(`SELECT value FROM "${schema}".queue_meta WHERE key = 'deleted'`);
    const history = await admin.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".job_history WHERE job_id <> $1`, [ids[3]]);
    await admin.end();
    expect(Number(deleted.rows[0]!.value)).toBe(3);
    expect(Number(history.rows[0]!.n)).toBe(0);
  });

  it('backup points to pg_dump; diagnose reports the schema', async () => {
    const schema = pg.schema();
    const store = pg.open({ schema });
    const err = (await store.backup('/tmp/x.db').catch((e: unknown) => e)) as DatabaseError;
    expect(err).toBeInstanceOf(DatabaseError);
    expect(err.message).toContain(`pg_dump --schema=${schema}`);
    const d = await store.diagnose({ integrity: true, now: NOW });
    expect(d).toMatchObject({ walBytes: 0, freePages: 0, expiredLeases: 0 });
    expect(d.fileBytes).toBeGreaterThan(0);
    expect(d.path).toContain(schema);
    expect(d.integrity).toBeUndefined();
  });
});
