/**
 * Picks and opens the store a queue's options name: a path is a SQLite file,
 * a `postgres://` connection a schema on a PostgreSQL server; a store of
 * one's own comes in through `createQueue({ store })`.
 */
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { createPostgresStore } from './postgres/postgres-store.js';
import { createSqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';
import type { SqliteDatabase } from './sqlite/app-database.js';

// What createQueue's options take of a store beyond the contract: an application's SQLite connection.
export { checkAppDatabase, type SqliteDatabase } from './sqlite/app-database.js';

export interface StoreChoice {
  path: string;
  /** PostgreSQL instead of `path`. */
  connection?: string;
  schema?: string;
  /** The queue's worker count: a PostgreSQL pool is sized from it. */
  concurrency: number;
  durability: 'normal' | 'full';
  cacheMiB: number;
  busyTimeoutMs: number;
  history: boolean;
  /** Build the index of finished jobs by age now (the queue deletes finished jobs after a while). */
  retentionIndex: boolean;
  /** SQLite: the application's own connection to `path`, for synchronous inserts inside its transactions. */
  database?: SqliteDatabase;
}

/**
 * Connections for a PostgreSQL queue: claims and group-committed outcomes
 * take one each for a moment, so a few beyond a quarter of the workers serve
 * them; capped so that many processes do not exhaust the server's.
 */
export function poolSizeFor(concurrency: number): number {
  return Math.min(20, 4 + Math.ceil(concurrency / 4));
}

export function openStore(choice: StoreChoice, clock: Clock, logger: Logger): Store {
  const onWarning = (message: string) => logger.warn(message);
  if (choice.connection !== undefined) {
    return createPostgresStore({ connection: choice.connection, schema: choice.schema ?? 'litejobs', poolSize: poolSizeFor(choice.concurrency), history: choice.history, clock, onWarning });
  }
  const { connection: _connection, schema: _schema, concurrency: _concurrency, ...sqlite } = choice;
  return createSqliteStore({ ...sqlite, clock, onWarning });
}
