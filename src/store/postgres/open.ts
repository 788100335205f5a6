/**
 * The store's connection pool: created at once, connected on first use. The
 * first call awaits one `ready` promise that connects and migrates; if that
 * fails, the call rejects with LJ_ERR_DATABASE_OPEN and the next call tries
 * again. Every later failure is a DatabaseError with the driver's error as
 * its cause: LJ_ERR_DATABASE_UNAVAILABLE when the server could not be reached
 * or dropped the connection (lost-connection.ts), LJ_ERR_DATABASE otherwise.
 * Serialization failures and deadlocks (the database rolled the transaction
 * back) are retried here a few times. A lost connection is not: a write
 * whose connection broke may have committed, and only the caller knows
 * whether doing it again is safe.
 */
import { DatabaseError, LitejobsError, QueueClosedError } from '../../errors.js';
import { loadPg, type ConnectionConfig, type Pool, type PoolClient, type Queryable, type QueryResult } from './driver.js';
import { isConnectionLost } from './lost-connection.js';
import { isStalePlan, preparedStatements } from './prepared.js';
import { latestMigration, migrations, sqlFile, statement } from './sql.js';

/** PostgreSQL type oids whose text this store reads as numbers. */
const INT8 = 20;
/** SQLSTATEs after which the whole transaction can run again. */
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_TRIES = 5;
/** How long opening a connection may take: an unreachable host fails the call instead of hanging it. */
const CONNECT_TIMEOUT_MS = 10_000;

export interface Database extends Queryable {
  /** What error messages name: the server and database, without credentials, and the schema. */
  readonly where: string;
  /** One statement, autocommitted. */
  query<R = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<QueryResult<R>>;
  /** One statement's rows. */
  rows<R>(text: string, values?: readonly unknown[]): Promise<R[]>;
  /**
   * `fn` inside BEGIN … COMMIT on one connection; run again on a serialization
   * failure or deadlock. `snapshot`: a read-only transaction whose reads all
   * see one snapshot (REPEATABLE READ).
   */
  tx<T>(fn: (client: Queryable) => Promise<T>, mode?: 'write' | 'snapshot'): Promise<T>;
  /**
   * `call` on a connection the caller owns (inside the caller's transaction),
   * once the schema is migrated: errors are mapped, nothing is retried (the
   * transaction is the caller's to roll back or run again).
   */
  external<T>(call: () => Promise<T>): Promise<T>;
  /** A config for a connection of its own (the LISTEN client), with the pool's type parsers. */
  clientConfig(applicationName: string): ConnectionConfig;
  /** Rejects calls from now on; ends the pool. */
  close(): Promise<void>;
  readonly closed: boolean;
}

/** `postgres://user@host:port/db`, without a password. */
export function describeConnection(connection: string): string {
  try {
    const url = new URL(connection);
    url.password = '';
    url.search = '';
    return url.toString();
  } catch {
    return 'postgres (connection string not shown)';
  }
}

const codeOf = (err: unknown): string => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
};

export function toDatabaseError(err: unknown, where: string, code: 'LJ_ERR_DATABASE' | 'LJ_ERR_DATABASE_OPEN' = 'LJ_ERR_DATABASE'): LitejobsError {
  if (err instanceof LitejobsError) return err;
  const sqlState = codeOf(err);
  const message = (err as Error | null)?.message ?? String(err);
  const detail = `${message}${sqlState ? ` (${sqlState})` : ''}`;
  if (isConnectionLost(err)) {
    const unavailable = new DatabaseError('LJ_ERR_DATABASE_UNAVAILABLE', `database ${where} is unavailable: ${detail}`, { cause: err });
    // At the first connection the code stays LJ_ERR_DATABASE_OPEN; its cause says the server was out of reach.
    return code === 'LJ_ERR_DATABASE' ? unavailable : new DatabaseError(code, `cannot open database ${where}: ${detail}`, { cause: unavailable });
  }
  const prefix = code === 'LJ_ERR_DATABASE_OPEN' ? `cannot open database ${where}` : `database ${where}`;
  return new DatabaseError(code, `${prefix}: ${detail}`, { cause: err });
}

/**
 * A pool connection for several statements. While it is checked out the pool
 * does not listen to it, and the driver emits 'error' on a connection the
 * server ends between two statements (57P01 at a restart, a reset socket):
 * unheard, that event would crash the process. It is heard here, and a
 * connection that failed goes back to the pool to be dropped, not reused.
 */
async function checkout<T>(pool: Pool, use: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let failure: Error | undefined;
  const onError = (err: Error) => {
    failure ??= err;
  };
  client.on('error', onError);
  try {
    return await use(client);
  } catch (err) {
    // A statement's own failure leaves the transaction aborted: roll it back, or drop the connection if even that fails.
    if (!failure && !(await client.query(TX.rollback).then(() => true, () => false))) failure = err as Error;
    throw err;
  } finally {
    client.removeListener('error', onError);
    client.release(failure ?? false);
  }
}

/** Transaction control (sql/tx-*.sql): the same text for every schema. */
const TX = { begin: sqlFile('tx-begin'), beginSnapshot: sqlFile('tx-begin-snapshot'), commit: sqlFile('tx-commit'), rollback: sqlFile('tx-rollback') };

/** How long a litejobs session may sit idle inside a transaction before the server ends it. */
export const IDLE_IN_TRANSACTION_MS = 30_000;

export function openDatabase(o: { connection: string; schema: string; poolSize: number; onWarning?: (message: string) => void }): Database {
  const where = `${describeConnection(o.connection)} (schema ${o.schema})`;
  // On this pool's own types, so that nobody else's pg connections change.
  const pg = loadPg();
  const types = new pg.TypeOverrides();
  types.setTypeParser(INT8, Number);
  const config = (applicationName: string, max?: number): ConnectionConfig => ({
    connectionString: o.connection,
    types,
    application_name: applicationName,
    ...(max === undefined ? {} : { max }),
    // An idle pool keeps no process alive (as an open SQLite file does not).
    allowExitOnIdle: true,
    // litejobs' transactions never wait on anything but the server. One left open by a process that
    // stopped (SIGSTOP, a debugger) would hold its jobs' row locks and stall other processes' lease
    // sweeps: the server ends such a session instead, and the jobs' leases expire as after a crash.
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // A peer that vanished without closing the socket (a host down, a cable out) is noticed, not waited on for ever.
    keepAlive: true,
  });
  const pool: Pool = new pg.Pool(config('litejobs', o.poolSize));
  // An idle connection that breaks (server restart) is reported here; the pool replaces it.
  pool.on('error', (err) => o.onWarning?.(`database ${where}: an idle connection failed (${err.message})`));
  let closed = false;
  let ready: Promise<void> | undefined;

  const q = (name: string) => statement(name, o.schema);
  const known = latestMigration();
  const newer = (level: number) =>
    new DatabaseError('LJ_ERR_DATABASE_OPEN', `cannot open database ${where}: it was made by a newer litejobs (schema level ${level}; this version knows up to ${known})`);
  /**
   * The level read without the migrators' lock: a schema at this version's
   * level (every start but the first) opens with this one statement instead
   * of a transaction of seven round trips and a commit. The level is written
   * in the transaction that applies the migrations, so a schema seen at it
   * is migrated. Null: no schema or no table yet (the locked path makes them).
   */
  const levelNow = async (client: Queryable): Promise<number | null> => {
    try {
      return (await client.query<{ value: number }>(q('migrate-level'))).rows[0]?.value ?? null;
    } catch (err) {
      if (codeOf(err) === '42P01' || codeOf(err) === '3F000') return null; // undefined table, undefined schema
      throw err;
    }
  };

  const migrate = (): Promise<void> =>
    checkout(pool, async (client) => {
      const now = await levelNow(client);
      if (now === known) return;
      if (now !== null && now > known) throw newer(now);
      await client.query(TX.begin);
      // One migrator at a time per schema, across processes: the others wait here, then find the level up to date.
      await client.query(q('migrate-lock'), [`litejobs migrate ${o.schema}`]);
      await client.query(q('migrate-schema'));
      const exists = await client.query<{ t: string | null }>(q('migrate-exists'), [`"${o.schema}".queue_meta`]);
      let level = 0;
      if (exists.rows[0]?.t) {
        const row = await client.query<{ value: number }>(q('migrate-level'));
        level = row.rows[0]?.value ?? 0;
      }
      if (level > known) throw newer(level);
      for (const m of migrations(o.schema)) {
        if (m.level <= level) continue;
        await client.query(m.text);
        level = m.level;
      }
      await client.query(q('migrate-level-write'), [level]);
      await client.query(TX.commit);
    });

  const whenReady = (): Promise<void> => {
    if (closed) return Promise.reject(new QueueClosedError());
    ready ??= migrate().catch((err: unknown) => {
      ready = undefined; // the next call tries again
      throw toDatabaseError(err, where, 'LJ_ERR_DATABASE_OPEN');
    });
    return ready;
  };

  /** This pool's prepared statements (prepared.ts). */
  const statements = preparedStatements();
  /** Runs `call` once ready; again after a serialization failure, a deadlock or a stale prepared plan; maps what it throws. */
  const run = async <T>(call: () => Promise<T>): Promise<T> => {
    await whenReady();
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        if (isStalePlan(err) && attempt < MAX_TRIES && !closed) {
          statements.again();
          continue;
        }
        if (RETRYABLE.has(codeOf(err)) && attempt < MAX_TRIES && !closed) {
          // A short random pause, so that the two transactions that met do not meet again.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
          continue;
        }
        if (closed && !(err instanceof LitejobsError)) throw new QueueClosedError();
        throw toDatabaseError(err, where);
      }
    }
  };

  const prepared = statements.wrap(pool);
  return {
    where,
    query: <R>(text: string, values?: readonly unknown[]) => run(() => prepared.query<R>(text, values)),
    rows: <R>(text: string, values?: readonly unknown[]) => run(async () => (await prepared.query<R>(text, values)).rows),
    tx: <T>(fn: (client: Queryable) => Promise<T>, mode: 'write' | 'snapshot' = 'write') =>
      run(() =>
        checkout(pool, async (client) => {
          await client.query(mode === 'snapshot' ? TX.beginSnapshot : TX.begin);
          const out = await fn(statements.wrap(client));
          await client.query(TX.commit);
          return out;
        }),
      ),
    external: async <T>(call: () => Promise<T>) => {
      await whenReady();
      try {
        return await call();
      } catch (err) {
        throw err instanceof LitejobsError ? err : toDatabaseError(err, where);
      }
    },
    clientConfig: (applicationName) => config(applicationName),
    get closed() {
      return closed;
    },
    async close() {
      if (closed) return;
      closed = true;
      // A migration under way finishes (or fails) first: ending the pool under it would leave its connection dangling.
      await ready?.catch(() => undefined);
      await pool.end();
    },
  };
}
