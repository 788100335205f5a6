/**
 * A queue on a fresh temp file, closed and removed after each test. Under
 * `LITEJOBS_TEST_STORE=postgres` (the conformance project in vitest.config.ts)
 * the same tests get a queue on PostgreSQL instead, in a schema of their own.
 * `sql` reads and writes the test's tables directly on either store.
 */
import { afterEach } from 'vitest';
import { createQueue, type Queue, type QueueOptions, type Store } from '../../src/index.js';
import { createPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { pgUrl, usePgSchema } from './postgres.js';
import { silentLogger } from './silent-logger.js';
import { openRawSql, type RawSql } from './raw-sql.js';
import { tempDbPath } from './temp-db.js';

/** The store these tests run on: SQLite unless the conformance project says PostgreSQL. */
export const TEST_STORE: 'sqlite' | 'postgres' = process.env.LITEJOBS_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/** Where a child process opens the test's database: `createQueue({ ...target })`. */
export type QueueTarget = { path: string } | { connection: string; schema: string };

export interface QueueFixture {
  open(options?: Partial<QueueOptions>): Queue;
  /** The SQLite file; throws under PostgreSQL (the test is SQLite's own). */
  path(): string;
  /** The test's database, for a queue in another process. */
  target(): QueueTarget;
  /** The same as the CLI's `--db` takes it: the file, or `postgres://…?schema=…`. */
  dbArg(): string;
  /** A store of the test's database, to wrap and give to `open({ store })` (the queue closes it). */
  store(options?: { history?: boolean }): Store;
  /** Runs one statement on the test's database; `?` placeholders, rows back (numbers as numbers). */
  sql<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** The first column of the first row. */
  value<V = unknown>(text: string, params?: readonly unknown[]): Promise<V>;
  /**
   * Closes the test's queues and its raw connection and starts over on a new,
   * empty database (a new file, or a new schema): for a property test whose
   * runs must not see each other's rows.
   */
  renew(): Promise<void>;
}

export function useQueues(): QueueFixture {
  const queues: Queue[] = [];
  let db: { path: string; cleanup(): void } | undefined;
  const newSchema = TEST_STORE === 'postgres' ? usePgSchema() : undefined;
  let schema: string | undefined;
  let raw: RawSql | undefined;
  const renew = async () => {
    for (const q of queues.splice(0)) await q.close({ timeout: 1000 });
    await raw?.close();
    raw = undefined;
    db?.cleanup();
    db = undefined;
    schema = undefined;
  };
  // Registered after usePgSchema's: vitest runs afterEach hooks in reverse, so these close before the schema is dropped.
  afterEach(renew);
  const path = () => {
    if (newSchema) throw new Error('this test reads the SQLite file itself: it does not belong to the PostgreSQL conformance project');
    db ??= tempDbPath();
    return db.path;
  };
  // Every queue a test opens shares one database, as they share one file under SQLite.
  const target = (): QueueTarget => {
    if (!newSchema) return { path: path() };
    schema ??= newSchema();
    return { connection: pgUrl(), schema };
  };
  const sql = async <R>(text: string, params: readonly unknown[] = []): Promise<R[]> => {
    raw ??= await openRawSql(target());
    return raw.query<R>(text, params);
  };
  return {
    path,
    target,
    dbArg() {
      const t = target();
      if ('path' in t) return t.path;
      const url = new URL(t.connection);
      url.searchParams.set('schema', t.schema);
      return url.toString();
    },
    store(options = {}) {
      const t = target();
      const history = options.history ?? true;
      return 'path' in t
        ? createSqliteStore({ path: t.path, durability: 'normal', cacheMiB: 8, busyTimeoutMs: 1000, history })
        : createPostgresStore({ connection: t.connection, schema: t.schema, poolSize: 4, history });
    },
    sql,
    renew,
    async value<V>(text: string, params?: readonly unknown[]) {
      const [row] = await sql<Record<string, unknown>>(text, params);
      return (row === undefined ? undefined : Object.values(row)[0]) as V;
    },
    open(options = {}) {
      const q = createQueue({ ...(options.store ? {} : target()), logger: silentLogger, ...options });
      queues.push(q);
      return q;
    },
  };
}
