/**
 * Connections that break under a running store, at the points a server
 * restart makes dangerous: inside a transaction (the driver then raises an
 * 'error' event that, unheard, crashes the process), and between a commit
 * and its acknowledgement (the write happened, the client never heard), for
 * an outcome and for a claim. On the shared server: one session is ended
 * with pg_terminate_backend, others are cut by a proxy; the server itself
 * keeps running.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createQueue, defineJob, type Queue } from '../../src/index.js';
import { DatabaseError } from '../../src/errors.js';
import { isLate } from '../../src/engine/claim/rate-starts.js';
import { openDatabase, type Database } from '../../src/store/postgres/open.js';
import { createPostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { NewJob } from '../../src/store/store.js';
import { CLAIM_RULE } from '../helpers/claim-rule.js';
import { pgClient, pgUrl, usePgSchema } from '../helpers/postgres.js';
import { startPgProxy } from '../helpers/pg-proxy.js';
import { events, nextEvent } from '../helpers/wait.js';

const newSchema = usePgSchema();
let db: Database | undefined;
let queue: Queue | undefined;
afterEach(async () => {
  await queue?.close();
  await db?.close();
  queue = undefined;
  db = undefined;
});

const NOW = 1_000_000;
const pending = (group: string | null): NewJob => ({ name: 'a', state: 'pending', payload: '{}', key: null, priority: 0, runAt: NOW, retry: null, timeout: null, group });

/** A logger whose lines the test reads. */
function capturingLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
  return { logger, lines };
}

describe('a connection lost under the PostgreSQL store', () => {
  it('ended inside a transaction: that call fails with LJ_ERR_DATABASE_UNAVAILABLE, the process lives on, the next call gets a new connection', async () => {
    db = openDatabase({ connection: pgUrl(), schema: newSchema(), poolSize: 1 });
    const admin = await pgClient();
    let ended = 0;
    try {
      const failed = await db
        .tx(async (client) => {
          const [{ pid }] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
          ended = pid;
          // As at a fast shutdown: the server ends the session between two statements of the transaction.
          await admin.query('SELECT pg_terminate_backend($1)', [pid]);
          await client.query('SELECT 1');
        })
        .catch((err: unknown) => err);
      expect(failed).toBeInstanceOf(DatabaseError);
      expect(failed).toMatchObject({ code: 'LJ_ERR_DATABASE_UNAVAILABLE' });
      // The pool's one connection was dropped, not handed out again broken.
      const [now] = await db.rows<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      expect(now?.pid).not.toBe(ended);
    } finally {
      await admin.end();
    }
  });

  it('cut after the server committed an outcome and before the reply: the worker tries again, sees its own write, and reports the job completed once', async () => {
    const proxy = await startPgProxy();
    const { logger, lines } = capturingLogger();
    let runs = 0;
    queue = createQueue({
      connection: proxy.url,
      schema: newSchema(),
      logger,
      lease: 60_000,
      jobs: [defineJob({ name: 'once', handler: () => ++runs })],
    });
    const { id } = await queue.enqueue('once', {});
    const completed = nextEvent(queue.events$, (e) => e.job.id === id && e.to === 'completed', 20_000);
    // A batch of completions is one autocommitted statement (`WITH r AS …`): the server replies once it has committed it.
    const cut = proxy.loseNextReply('WITH r AS (');
    await queue.start();
    await cut;
    expect((await completed).attempts).toBe(1);
    expect(runs).toBe(1);
    expect(await queue.getJob(id)).toMatchObject({ state: 'completed', attempts: 1, result: 1 });
    expect((await queue.history(id)).filter((t) => t.event === 'job.complete')).toHaveLength(1);
    expect(lines.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([
      'recording job outcomes: the database is unavailable; reconnecting with backoff (further failures are not logged until it answers)',
    ]);
  });

  it('cut after the server committed a claim and before the reply: the next claim takes the jobs back, and each runs once, on its first attempt', async () => {
    const proxy = await startPgProxy();
    const { logger, lines } = capturingLogger();
    const runs = new Map<number, number>();
    queue = createQueue({
      connection: proxy.url,
      schema: newSchema(),
      logger,
      // Without taking them back, the claimed jobs would wait this long for their lease to run out.
      lease: 120_000,
      jobs: [
        defineJob({
          name: 'once',
          handler: (_p: unknown, ctx) => {
            runs.set(ctx.jobId, (runs.get(ctx.jobId) ?? 0) + 1);
            return ctx.attempt;
          },
        }),
      ],
    });
    const ids = (await queue.enqueueMany([1, 2, 3].map((n) => ({ name: 'once', payload: n })))).map((r) => r.id);
    const done = events(queue.events$, (e) => e.to === 'completed', ids.length, 20_000);
    const cut = proxy.loseNextReply('claim_ready(');
    await queue.start();
    await cut;
    expect((await done).map((e) => e.job.id).sort()).toEqual(ids);
    expect([...runs].sort()).toEqual(ids.map((id) => [id, 1]));
    for (const id of ids) {
      expect(await queue.getJob(id)).toMatchObject({ state: 'completed', attempts: 1, result: 1 });
      // One claim, under the token of the claim whose reply was lost.
      expect((await queue.history(id)).map((t) => t.event)).toEqual(['job.enqueue', 'job.claim', 'job.complete']);
    }
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('cut after the server committed a claim of one worker pool: the jobs go back to that pool, never to another pool of the process', async () => {
    const proxy = await startPgProxy();
    const handler = (_p: unknown, ctx: { attempt: number }) => ctx.attempt;
    queue = createQueue({
      connection: proxy.url,
      schema: newSchema(),
      logger: false,
      lease: 120_000,
      jobs: [defineJob({ name: 'x', handler }), defineJob({ name: 'y', handler })],
      pools: { a: { jobs: ['x'], concurrency: 2 }, b: { jobs: ['y'], concurrency: 2 } },
    });
    const ids = (await queue.enqueueMany(['x', 'x', 'x', 'y', 'y', 'y'].map((name) => ({ name, payload: {} })))).map((r) => r.id);
    const done = events(queue.events$, (e) => e.to === 'completed', ids.length, 20_000);
    const cut = proxy.loseNextReply('claim_ready(');
    await queue.start();
    await cut;
    await done;
    for (const id of ids) {
      const job = await queue.getJob(id);
      const ran = (await queue.history(id)).find((t) => t.event === 'job.complete')!;
      // Run by a worker of the job's own pool, on its first attempt.
      expect([job.name, job.attempts, ran.workerId?.includes(job.name === 'x' ? '/a/w' : '/b/w')]).toEqual([job.name, 1, true]);
    }
  });

  it('cut after the server committed a limited claim (grouped jobs) and before the reply: the fast part is handed over, the next claim takes the rest back', async () => {
    const proxy = await startPgProxy();
    const store = createPostgresStore({ connection: proxy.url, schema: newSchema(), history: true });
    try {
      await store.ping();
      const ids = (await store.insert([{ group: null }, { group: 'g1' }, { group: 'g1' }, { group: 'g2' }].map(({ group }) => pending(group)), NOW)).map((r) => r.id);
      const claim = () => store.claim({ names: ['a'], limit: 10, owner: 'w', leaseMs: 120_000, now: NOW, rule: CLAIM_RULE, limits: new Map([['a', { groupConcurrency: 1 }]]) });
      // The fast claim (one autocommitted statement) takes the ungrouped job and finds grouped ones pending;
      // the limited claim's transaction then commits, and its COMMIT's reply is lost.
      const cut = proxy.loseNextCommitReply();
      const first = await claim();
      await cut;
      expect(first.jobs.map((j) => j.id)).toEqual([ids[0]]);
      const second = await claim();
      expect(second.jobs.map((j) => j.id).sort()).toEqual([ids[1], ids[3]]);
      expect(second.jobs.every((j) => j.attempts === 1 && j.state === 'processing')).toBe(true);
      // Both groups are at their limit: the rest is held back by running jobs.
      expect(second.heldBack).toEqual({ until: null });
      for (const id of ids.filter((id) => id !== ids[2])) {
        expect((await store.history(id)).map((t) => t.event)).toEqual(['job.enqueue', 'job.claim']);
      }
      expect(await store.get(ids[2]!)).toMatchObject({ state: 'pending', attempts: 0 });
    } finally {
      await store.close();
    }
  });

  it('cut after the server committed a claim of rate-limited jobs: they come back past their start deadline, to be handed back, not started late', async () => {
    const proxy = await startPgProxy();
    const store = createPostgresStore({ connection: proxy.url, schema: newSchema(), history: true });
    try {
      await store.ping();
      const ids = (await store.insert([pending(null), pending(null)], NOW)).map((r) => r.id);
      const limits = new Map([['a', { rateLimit: { max: 10, perMs: 60_000, perGroup: false } }]]);
      const claim = async (now: number) => (await store.claim({ names: ['a'], limit: 2, owner: 'w', leaseMs: 120_000, now, rule: CLAIM_RULE, limits, startNow: 1, startWithinMs: 40 })).jobs;
      const cut = proxy.loseNextCommitReply();
      await expect(claim(NOW)).rejects.toMatchObject({ code: 'LJ_ERR_DATABASE_UNAVAILABLE' });
      await cut;
      const back = await claim(NOW + 5000);
      expect(back.map((j) => j.id)).toEqual(ids);
      // Both are late at once, the one stamped at the claim as well as the one stamped at its deadline.
      expect(back.map((j) => isLate(j, NOW + 5000))).toEqual([true, true]);
    } finally {
      await store.close();
    }
  });
});
