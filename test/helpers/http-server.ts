/** A queue on a temp file served by the HTTP API on a free loopback port; both closed after each test. */
import Database from 'better-sqlite3';
import { afterEach } from 'vitest';
import { startServer, type RunningServer, type ServerOptions } from '../../src/http/index.js';
import { createQueue, type Queue, type QueueOptions } from '../../src/index.js';
import { silentLogger } from './silent-logger.js';
import { tempDbPath } from './temp-db.js';

export interface Served {
  url: string;
  queue: Queue;
  server: RunningServer;
  path: string;
  /** JSON in and out; `body` a string is sent as is. The answer's body is parsed JSON of any shape. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever shape each route answers
  call(method: string, route: string, init?: { body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: any }>;
  /** Rows in the jobs table and the highest id, read over a connection of its own. */
  snapshot(): { jobs: number; maxId: number };
}

export function useServers(): (options?: { queue?: Partial<QueueOptions>; server?: Partial<Omit<ServerOptions, 'queue'>> }) => Promise<Served> {
  const open: Array<{ server: RunningServer; queue: Queue; cleanup(): void }> = [];
  afterEach(async () => {
    for (const o of open.splice(0)) {
      await o.server.close();
      await o.queue.close({ timeout: 1000 });
      o.cleanup();
    }
  });
  return async (options = {}) => {
    const db = tempDbPath();
    const queue = createQueue({ path: db.path, logger: silentLogger, ...options.queue });
    const server = await startServer({ queue, port: 0, ...options.server });
    open.push({ server, queue, cleanup: db.cleanup });
    return {
      url: server.url,
      queue,
      server,
      path: db.path,
      async call(method, route, init = {}) {
        const headers: Record<string, string> = { ...init.headers };
        let body: string | undefined;
        if (init.body !== undefined) {
          body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
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
      snapshot() {
        const reader = new Database(db.path, { readonly: true });
        try {
          return reader.prepare('SELECT count(*) AS jobs, coalesce(max(id), 0) AS maxId FROM jobs').get() as { jobs: number; maxId: number };
        } finally {
          reader.close();
        }
      },
    };
  };
}
