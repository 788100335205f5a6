/**
 * A PostgreSQL server that stops and starts again under an open store and a
 * running queue. On a throwaway server of this file's own
 * (test/helpers/pg-instance.ts): the shared one is never restarted.
 */
import { createRequire } from 'node:module';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createQueue, defineJob, type Queue } from '../../src/index.js';
import { DatabaseError } from '../../src/errors.js';
import { createPostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { Client } from '../../src/store/postgres/driver.js';
import type { Store } from '../../src/store/store.js';
import { type PgInstance, startPgInstance } from '../helpers/pg-instance.js';
import { nextEvent, waitFor } from '../helpers/wait.js';
import { job, NOW } from './fixture.js';

let server: PgInstance;
beforeAll(async () => {
  server = await startPgInstance();
}, 60_000);
afterAll(() => server?.remove());

// A test that failed with the server stopped does not take the next one down with it.
beforeEach(async () => {
  if (!server.running()) await server.start();
});

let queue: Queue | undefined;
let store: Store | undefined;
afterEach(async () => {
  await queue?.close();
  await store?.close();
  queue = undefined;
  store = undefined;
});

let schemas = 0;
const newSchema = () => `lj_restart_${++schemas}`;

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Waits until a store's change listener is connected (its LISTEN shows in pg_stat_activity). */
async function listening(on: PgInstance): Promise<void> {
  const admin = new (createRequire(import.meta.url)('pg') as { Client: new (o: { connectionString: string }) => Client }).Client({ connectionString: on.url });
  await admin.connect();
  try {
    const count = async () => (await admin.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = 'litejobs listen'`)).rows.length;
    for (let tries = 0; (await count()) === 0; tries++) {
      if (tries > 1000) throw new Error('the change listener never connected');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await admin.end();
  }
}

function capturingLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
  return { logger, lines, has: (text: string) => lines.some((l) => l.msg.includes(text)) };
}

describe('a PostgreSQL server restart', () => {
  it('store calls fail with LJ_ERR_DATABASE_UNAVAILABLE while it is down and answer once it is back; the listener reports a change', async () => {
    const warnings: string[] = [];
    store = createPostgresStore({ connection: server.url, schema: newSchema(), history: true, onWarning: (m) => warnings.push(m) });
    await store.insert([job()], NOW);
    expect(store.externalChange()).toBe(false); // starts the listener
    let changes = 0;
    store.watchChanges!(() => changes++);
    await listening(server);

    // Immediate: every session, the pool's idle ones and the listener's, dies without a goodbye.
    await server.stop('immediate');
    const down = await store.stats().catch((err: unknown) => err);
    expect(down).toBeInstanceOf(DatabaseError);
    expect(down).toMatchObject({ code: 'LJ_ERR_DATABASE_UNAVAILABLE' });

    await server.start();
    expect((await store.stats()).total).toBe(1);
    // Notices sent while it was away are lost: the listener says so with one change once it listens again.
    await waitFor(() => changes >= 1, 30_000);
    expect(warnings.some((w) => w.includes('the change listener stopped'))).toBe(true);
  }, 90_000);

  it('a worker started while the server is down waits for it with warnings, then drains', async () => {
    const schema = newSchema();
    const producer = createQueue({ connection: server.url, schema, logger: pino({ level: 'silent' }) });
    const { id } = await producer.enqueue('quick', {});
    await producer.close();
    await server.stop('fast');

    const { logger, lines, has } = capturingLogger();
    queue = createQueue({ connection: server.url, schema, logger, jobs: [defineJob({ name: 'quick', handler: () => 'done' })] });
    const completed = nextEvent(queue.events$, (e) => e.job.id === id && e.to === 'completed', 60_000);
    await queue.start();
    // Its first connection fails (LJ_ERR_DATABASE_OPEN, caused by LJ_ERR_DATABASE_UNAVAILABLE): an outage, not an error.
    await waitFor(() => has('claiming jobs: the database is unavailable'), 30_000);
    await server.start();
    await completed;
    expect(await queue.getJob(id)).toMatchObject({ state: 'completed', result: 'done' });
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  }, 90_000);

  it('an outcome reached while the server is down is retried until it is back: the job completes once, its handler ran once', async () => {
    const { logger, lines, has } = capturingLogger();
    let runs = 0;
    const gate = deferred();
    const running = deferred();
    queue = createQueue({
      connection: server.url,
      schema: newSchema(),
      logger,
      // Far longer than the outage: the outcome must land under the lease it was earned under.
      lease: 120_000,
      jobs: [
        defineJob({
          name: 'slow',
          handler: async () => {
            runs++;
            running.resolve();
            await gate.promise;
            return 'done';
          },
        }),
      ],
    });
    const { id } = await queue.enqueue('slow', {});
    const completed = nextEvent(queue.events$, (e) => e.job.id === id && e.to === 'completed', 60_000);
    await queue.start();
    await running.promise;

    await server.stop('fast');
    gate.resolve(); // the handler returns while nothing answers
    await waitFor(() => has('recording job outcomes: the database is unavailable'), 30_000);
    await server.start();

    expect((await completed).attempts).toBe(1);
    expect(runs).toBe(1);
    expect(await queue.getJob(id)).toMatchObject({ state: 'completed', attempts: 1, result: 'done' });
    await waitFor(() => has('recording job outcomes: the database answers again'), 30_000);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  }, 90_000);
});
