/**
 * A queue on a temp file served by the HTTP API on a free loopback port; both
 * closed after each test. Under `LITEJOBS_TEST_STORE=postgres` (see
 * queue-fixture.ts) the queue is on PostgreSQL, in a schema of its own.
 */
import Database from 'better-sqlite3';
import { afterEach } from 'vitest';
import { startServer, type RunningServer, type ServerOptions } from '../../src/http/index.js';
import { createQueue, type Queue, type QueueOptions } from '../../src/index.js';
import { pgClient, pgUrl, usePgSchema } from './postgres.js';
import { TEST_STORE } from './queue-fixture.js';
import { openRawSql } from './raw-sql.js';
import { silentLogger } from './silent-logger.js';
import { tempDbPath } from './temp-db.js';

export interface Served {
  url: string;
  queue: Queue;
  server: RunningServer;
  /** The SQLite file (a test that reads it is SQLite-only: this throws on PostgreSQL). */
  readonly path: string;
  /** JSON in and out (a POST without `body` is an empty JSON body); `body` a string is sent as is. The answer's body is parsed JSON of any shape. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever shape each route answers
  call(method: string, route: string, init?: { body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: any }>;
  /** One statement on the server's database over a connection of its own (`?` placeholders; see raw-sql.ts). */
  sql<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** Rows in the jobs table and the highest id, read over a connection of its own. */
  snapshot(): Promise<{ jobs: number; maxId: number }>;
}

export function useServers(): (options?: { queue?: Partial<QueueOptions>; server?: Partial<Omit<ServerOptions, 'queue'>> }) => Promise<Served> {
  // Before the closing hook: vitest runs afterEach hooks in reverse, so queues close before their schema is dropped.
  const newSchema = TEST_STORE === 'postgres' ? usePgSchema() : undefined;
  const open: Array<{ server: RunningServer; queue: Queue; cleanup(): void }> = [];
  afterEach(async () => {
    for (const o of open.splice(0)) {
      await o.server.close();
      await o.queue.close({ timeout: 1000 });
      o.cleanup();
    }
  });
  return async (options = {}) => {
    const schema = newSchema?.();
    const db = schema === undefined ? tempDbPath() : undefined;
    const target: Partial<QueueOptions> = db ? { path: db.path } : { connection: pgUrl(), schema };
    const queue = createQueue({ ...target, logger: silentLogger, ...options.queue });
    let server: RunningServer;
    try {
      server = await startServer({ queue, port: 0, ...options.server });
    } catch (err) {
      // Options the server refuses (a test of that): the queue is closed here, as no test holds it.
      await queue.close({ timeout: 1000 });
      db?.cleanup();
      throw err;
    }
    open.push({ server, queue, cleanup: () => db?.cleanup() });
    // A PostgreSQL queue makes its schema on first use: made before a test reads it.
    if (!db) await queue.stats();
    const count = 'SELECT count(*) AS jobs, coalesce(max(id), 0) AS "maxId" FROM';
    return {
      url: server.url,
      queue,
      server,
      get path() {
        if (!db) throw new Error('this test reads the SQLite file itself: it does not belong to the PostgreSQL conformance project');
        return db.path;
      },
      async call(method, route, init = {}) {
        const headers: Record<string, string> = { ...init.headers };
        let body: string | undefined;
        if (init.body !== undefined) {
          body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
          headers['content-type'] ??= 'application/json';
        } else if (method === 'POST') {
          // A JSON client's bare POST: the server takes an empty JSON body as {} (and refuses a POST that is not JSON).
          headers['content-type'] ??= 'application/json';
        }
        const res = await fetch(server.url + route, { method, headers, ...(body === undefined ? {} : { body }) });
        const text = await res.text();
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON (metrics text)
        }
        return { status: res.status, body: parsed };
      },
      async sql<R>(text: string, params: readonly unknown[] = []) {
        const raw = await openRawSql(db ? { path: db.path } : { connection: pgUrl(), schema: schema! });
        try {
          return await raw.query<R>(text, params);
        } finally {
          await raw.close();
        }
      },
      async snapshot() {
        if (!db) {
          const client = await pgClient();
          try {
            const { rows } = await client.query<{ jobs: string; maxId: string }>(`${count} "${schema}".jobs`);
            return { jobs: Number(rows[0]!.jobs), maxId: Number(rows[0]!.maxId) };
          } finally {
            await client.end();
          }
        }
        const reader = new Database(db.path, { readonly: true });
        try {
          return reader.prepare(`${count} jobs`).get() as { jobs: number; maxId: number };
        } finally {
          reader.close();
        }
      },
    };
  };
}
