/**
 * The part of the `pg` driver this store uses, typed here: the package ships
 * no declarations of its own. Loaded with `require` (pg is CommonJS), so the
 * store's types do not depend on a declaration package being installed.
 */
import { createRequire } from 'node:module';
import { DatabaseError } from '../../errors.js';

export interface QueryResult<R> {
  rows: R[];
  rowCount: number | null;
}

export interface Queryable {
  query<R = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<QueryResult<R>>;
}

export interface PoolClient extends Queryable {
  /** `true` (or an error): the connection is broken, the pool drops it. */
  release(destroy?: boolean | Error): void;
  on(event: 'error', listener: (err: Error) => void): void;
  removeListener(event: 'error', listener: (err: Error) => void): void;
}

export interface Pool extends Queryable {
  connect(): Promise<PoolClient>;
  end(): Promise<void>;
  on(event: 'error', listener: (err: Error) => void): void;
}

export interface Notification {
  channel: string;
  payload?: string;
}

export interface Client extends Queryable {
  connect(): Promise<void>;
  end(): Promise<void>;
  on(event: 'notification', listener: (message: Notification) => void): void;
  on(event: 'error', listener: (err: Error) => void): void;
  on(event: 'end', listener: () => void): void;
  removeAllListeners(): void;
  /** The driver's connection; its socket is unref'd so that listening keeps no process alive. */
  connection?: { stream?: { unref?: () => void } };
  processID?: number | null;
}

export interface TypeOverrides {
  setTypeParser(oid: number, parse: (text: string) => unknown): void;
}

export interface ConnectionConfig {
  connectionString: string;
  types?: TypeOverrides;
  application_name?: string;
  max?: number;
  allowExitOnIdle?: boolean;
  connectionTimeoutMillis?: number;
  /** TCP keep-alive on the connection's socket. */
  keepAlive?: boolean;
  /** Sent as the session setting of the same name (ms). */
  idle_in_transaction_session_timeout?: number;
}

interface Pg {
  Pool: new (config: ConnectionConfig) => Pool;
  Client: new (config: ConnectionConfig) => Client;
  TypeOverrides: new () => TypeOverrides;
}

let loaded: Pg | undefined;

/**
 * The driver, loaded on first use: `pg` is an optional peer dependency, needed
 * only by a queue on PostgreSQL, so a SQLite-only install never loads it.
 */
export function loadPg(): Pg {
  if (loaded) return loaded;
  try {
    loaded = createRequire(import.meta.url)('pg') as Pg;
  } catch (err) {
    throw new DatabaseError('LJ_ERR_DATABASE_OPEN', 'a postgres:// connection needs the pg package: npm install pg', { cause: err });
  }
  return loaded;
}
