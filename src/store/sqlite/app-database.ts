/**
 * The application's own better-sqlite3 connection (`createQueue({ database })`),
 * through which `enqueueSync` writes jobs inside the application's
 * transactions. Checked before the store opens the file; once the store has
 * migrated it, the connection is made ready to share the file: WAL mode (the
 * store puts the file in WAL, and WAL stays on the file) and a busy timeout.
 * Nothing else of the application's settings is touched.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { ValidationError } from '../../errors.js';

/**
 * An application's better-sqlite3 `Database`, opened on a file (the parts
 * litejobs uses: it is typed structurally, so that litejobs' public types do
 * not depend on better-sqlite3's type package).
 */
export interface SqliteDatabase {
  /** The file it was opened on. */
  readonly name: string;
  readonly memory: boolean;
  readonly readonly: boolean;
  readonly open: boolean;
  readonly inTransaction: boolean;
  prepare(source: string): unknown;
  transaction(fn: (...args: never[]) => unknown): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
}

const realPath = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path); // not there (yet): compare as written
  }
};

/**
 * Checks the application's connection and returns the file the queue opens:
 * `path` when given (it must name the connection's file), else the connection's own.
 */
export function checkAppDatabase(database: unknown, path: string | undefined): string {
  const db = database as Partial<SqliteDatabase> | null;
  if (typeof db !== 'object' || db === null || typeof db.prepare !== 'function' || typeof db.transaction !== 'function' || typeof db.pragma !== 'function' || typeof db.name !== 'string') {
    throw new ValidationError('createQueue database must be a better-sqlite3 Database (new Database(file))');
  }
  if (!db.open) throw new ValidationError(`createQueue database ${db.name} is closed`);
  if (db.memory || db.name === '' || db.name === ':memory:') {
    throw new ValidationError('createQueue database must be opened on a file: an in-memory or anonymous database cannot be shared with the queue\'s own connections');
  }
  if (db.readonly) throw new ValidationError(`createQueue database ${db.name} is opened read-only: enqueueSync writes with it`);
  if (path !== undefined && realPath(path) !== realPath(db.name)) {
    throw new ValidationError(`createQueue path ${path} and database ${db.name} name different files (give one, or both naming the same file)`);
  }
  return path ?? db.name;
}

/**
 * After the store opened (and migrated) the file: the application's
 * connection reads in WAL mode (it picks up the file's mode at its next read)
 * and waits for locks. A busy timeout of 0 (SQLite's own default, not
 * better-sqlite3's 5000 ms) would make an enqueueSync fail at once whenever a
 * claim holds the write lock: it is set to the queue's busyTimeout, and said.
 */
export function attachAppDatabase(db: SqliteDatabase, busyTimeoutMs: number, warn: (message: string) => void): void {
  if (!db.open) throw new ValidationError(`createQueue database ${db.name} is closed`);
  db.pragma('schema_version'); // a read: the connection now sees the file in WAL mode
  const mode = String(db.pragma('journal_mode', { simple: true })).toLowerCase();
  if (mode !== 'wal') {
    throw new ValidationError(`createQueue database ${db.name} is in journal mode "${mode}", not WAL: the queue's connections and the application's cannot share it so`);
  }
  if (Number(db.pragma('busy_timeout', { simple: true })) === 0 && busyTimeoutMs > 0) {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    warn(`database ${db.name}: the application's connection had no busy timeout; set to the queue's busyTimeout (${busyTimeoutMs} ms) so that enqueueSync waits for the queue's own writes`);
  }
}
