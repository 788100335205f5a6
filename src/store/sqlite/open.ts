/**
 * Opens (and if need be creates) the SQLite file: pragmas, migrations, and
 * typed errors for paths that cannot be opened or written.
 */
import Database from 'better-sqlite3';
import { statfsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DatabaseError } from '../../errors.js';
import { migrations } from './sql.js';

export interface OpenOptions {
  path: string;
  /** `normal`: synchronous=NORMAL (a power loss may undo the last commits, never corrupts); `full`: fsync per commit. */
  durability: 'normal' | 'full';
  /** Page cache in MiB, sized so the hot indexes stay in memory. */
  cacheMiB: number;
  busyTimeoutMs: number;
  /**
   * The file is the application's own (`createQueue({ database })`): its
   * tables may sit beside litejobs' ones.
   */
  shared?: boolean;
  onWarning?: (message: string) => void;
}

export const WAL_AUTOCHECKPOINT_PAGES = 10_000;

// statfs magic numbers of network file systems, on which SQLite's locks are unreliable.
const NETWORK_FS: Record<number, string> = { 26985: 'nfs', 4283649346: 'cifs', 4266872130: 'smb2', 20859: 'smb' };

function wrap(err: unknown, path: string): DatabaseError {
  const code = (err as { code?: string }).code ?? '';
  if (code.startsWith('SQLITE_READONLY')) {
    return new DatabaseError('LJ_ERR_DATABASE_READONLY', `database ${path} is read-only`, { cause: err });
  }
  const native = nativeModuleFailure(err);
  if (native) return new DatabaseError('LJ_ERR_DATABASE_OPEN', `cannot open database ${path}: ${native}`, { cause: err });
  return new DatabaseError('LJ_ERR_DATABASE_OPEN', `cannot open database ${path}: ${(err as Error).message}`, { cause: err });
}

const REBUILD = 'run `npm rebuild better-sqlite3` with the Node.js that runs litejobs';

/**
 * SQLite's native module (better-sqlite3) loads on the first open. When it
 * cannot (built for another Node.js, after the runtime changed under an
 * install; never built, its install script skipped), Node's own message
 * names neither the package nor the fix: say both, on one line.
 */
export function nativeModuleFailure(err: unknown): string | undefined {
  const message = String((err as { message?: unknown })?.message ?? '');
  const versions = /NODE_MODULE_VERSION (\d+)\.\s+This version of Node\.js requires\s+NODE_MODULE_VERSION (\d+)/.exec(message);
  if (versions) {
    return (
      `better-sqlite3's native module was built for another Node.js (module version ${versions[1]}; ` +
      `Node.js ${process.versions.node} needs ${versions[2]}): ${REBUILD}, or reinstall (npm ci)`
    );
  }
  if (/Could not locate the bindings file/.test(message)) {
    return `better-sqlite3's native module was never built (its install script did not run: npm may skip install scripts it was not told to allow): ${REBUILD}`;
  }
  if ((err as { code?: string })?.code === 'ERR_DLOPEN_FAILED') {
    return `better-sqlite3's native module cannot be loaded (${message.split('\n')[0]}): ${REBUILD}`;
  }
  return undefined;
}

export function openDatabase(options: OpenOptions): Database.Database {
  const path = options.path;
  if (path !== ':memory:') {
    try {
      const fsType = NETWORK_FS[Number(statfsSync(dirname(resolve(path))).type)];
      if (fsType) options.onWarning?.(`database ${path} is on a network file system (${fsType}): SQLite locking is unsafe there`);
    } catch {
      // the directory does not exist: opening below reports it
    }
  }
  let db: Database.Database;
  try {
    db = new Database(path, { timeout: options.busyTimeoutMs });
  } catch (err) {
    throw wrap(err, path);
  }
  try {
    // Before anything writes (WAL mode is a write): a file that is not ours stays as it was.
    refuseForeign(db, path, options.shared === true);
    db.pragma('journal_mode = WAL');
    // At 'full' too: the store syncs the WAL after each commit, off the event loop (wal-sync.ts).
    db.pragma('synchronous = NORMAL');
    db.pragma(`cache_size = ${-Math.round(options.cacheMiB * 1024)}`);
    db.pragma('temp_store = MEMORY');
    db.pragma('journal_size_limit = 67108864');
    // A checkpointer thread copies the WAL back (checkpointer.ts); this
    // connection checkpoints by itself only past ~40 MiB of WAL, as a bound.
    db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
    db.pragma('foreign_keys = OFF');
    migrate(db);
    probeWritable(db);
  } catch (err) {
    db.close();
    throw err instanceof DatabaseError ? err : wrap(err, path);
  }
  return db;
}

/** The tables every litejobs file holds. */
const OWN_TABLES = ['jobs', 'job_history', 'queue_meta', 'paused_names', 'schedules', 'job_limits', 'job_steps', 'job_logs', 'worker_processes'];

/**
 * Refuses a file litejobs did not make (other tables, or a schema level but
 * no jobs table) and one made by a newer litejobs, before touching it. A file
 * shared with the application (`shared`, or already holding litejobs'
 * tables) may hold other tables, but none named as
 * litejobs' own before litejobs made them, and its `user_version` is
 * litejobs' schema level: an application that counts its own migrations
 * there cannot share the file.
 */
function refuseForeign(db: Database.Database, path: string, shared: boolean): void {
  const level = db.pragma('user_version', { simple: true }) as number;
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
  const known = migrations().at(-1)?.level ?? 0;
  const refuse = (why: string) => {
    throw new DatabaseError('LJ_ERR_DATABASE_OPEN', `cannot open database ${path}: ${why}`);
  };
  if (shared) {
    const clashing = tables.filter((t) => OWN_TABLES.includes(t));
    if (level === 0 && clashing.length > 0) refuse(`the application's tables ${clashing.join(', ')} have the names of litejobs' own`);
    if (level > 0 && !tables.includes('jobs')) {
      refuse(`PRAGMA user_version is ${level} but there is no jobs table: litejobs records its schema level in user_version, so the application must leave it alone`);
    }
  } else if (!(level > 0 && tables.includes('jobs')) && tables.some((t) => !OWN_TABLES.includes(t))) {
    // A file litejobs already shares with an application (createQueue({ database })) opens by its path too.
    refuse(`it is not a litejobs database (it holds other tables: ${tables.filter((t) => !OWN_TABLES.includes(t)).join(', ')})`);
  }
  if (level > 0 && !tables.includes('jobs')) refuse(`it is not a litejobs database (schema level ${level} but no jobs table)`);
  if (level > known) refuse(`it was made by a newer litejobs (schema level ${level}; this version knows up to ${known})`);
}

/**
 * In WAL mode SQLite may open a file it cannot write and only fail on the
 * first write; find out now, with a write that changes nothing.
 */
function probeWritable(db: Database.Database): void {
  const level = db.pragma('user_version', { simple: true }) as number;
  db.transaction(() => db.pragma(`user_version = ${level}`)).immediate();
}

/** Maps a SQLite failure during use to a typed error (read-only, I/O, locked). */
export function toDatabaseError(err: unknown, path: string): unknown {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? wrapUse(err, path, code) : err;
}

function wrapUse(err: unknown, path: string, code: string): DatabaseError {
  if (code.startsWith('SQLITE_READONLY')) return wrap(err, path);
  return new DatabaseError('LJ_ERR_DATABASE', `database ${path}: ${(err as Error).message} (${code})`, { cause: err });
}

/** Applies the numbered migrations above `PRAGMA user_version`, each in its own transaction. */
function migrate(db: Database.Database): void {
  for (const m of migrations()) {
    db.transaction(() => {
      // Re-read inside the write lock: another process may have migrated meanwhile.
      const level = db.pragma('user_version', { simple: true }) as number;
      if (level >= m.level) return;
      db.exec(m.text);
      db.pragma(`user_version = ${m.level}`);
    }).immediate();
  }
}
