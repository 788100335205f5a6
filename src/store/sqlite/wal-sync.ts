/**
 * `durability: 'full'` without blocking the event loop. SQLite's own
 * `synchronous = FULL` syncs the WAL inside each commit, on the calling
 * thread: the loop stood still for the whole fsync (about 1 ms here), and
 * every HTTP request, timer and lease renewal waited behind it.
 *
 * Instead the connection commits at `synchronous = NORMAL` (the commit's
 * frames are written to the WAL, not synced) and its caller is answered
 * once an fsync of the WAL file (fdatasync, as SQLite's own sync), run on
 * libuv's thread pool, has covered the commit. Nothing is acknowledged earlier than under FULL: a caller's
 * promise settles after its commit is on disk. The commits made while one
 * fsync runs share the next one (group commit): a sync covers every frame
 * written to the file before it started.
 *
 * Why syncing the WAL file is enough: a commit's frames stay in the WAL
 * until a checkpoint copies them into the database file, and SQLite syncs
 * the database file before the WAL is reused or truncated (in WAL mode at
 * NORMAL or FULL alike). So a commit is either in the WAL, which the fsync
 * covers, or already in a synced database file. The WAL keeps its inode
 * while any connection is open (SQLite truncates and rewrites it, never
 * replaces it), and this store's connection is open as long as this is.
 * SQLite syncs the directory of a WAL it creates at the WAL's first sync,
 * which no longer happens at commit: the directory is synced once here,
 * when the file is first opened.
 */
import { closeSync, fdatasync, fdatasyncSync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseError } from '../../errors.js';

export interface WalSync {
  /** Settles once every commit this connection made before the call is on disk. */
  settle(): Promise<void>;
  /** The same on the calling thread, for a synchronous call (enqueueSync). */
  settleSync(): void;
  /**
   * Closes the database (`closeDb`) with every commit on disk: waits for the
   * syncs under way, closes it, syncs the WAL one last time (a call that
   * committed meanwhile waits for that one), then lets the file go.
   */
  close(closeDb: () => Promise<void>): Promise<void>;
}

/**
 * `writes`: the connection's count of rows written so far (SQLite's
 * total_changes()), which grows with each commit. `syncFile`: the fsync run
 * off the event loop (tests watch it).
 */
export function createWalSync(dbPath: string, writes: () => number, syncFile: (fd: number, done: (err: Error | null) => void) => void = fdatasync): WalSync {
  const walPath = `${dbPath}-wal`;
  let fd: number | undefined;
  /** Writes covered by the last fsync that completed. */
  let synced = writes();
  /** The fsync under way and the writes it covers. */
  let running: { done: Promise<void>; covers: number } | undefined;
  /** The fsync that starts once `running` ends: every caller since `running` started waits for it. */
  let next: Promise<void> | undefined;
  /** Set once close() began: the last sync, which every later caller waits for. */
  let last: Promise<void> | undefined;

  /** The WAL's descriptor; undefined while there is no WAL file (nothing was written to one yet). */
  const file = (): number | undefined => {
    if (fd !== undefined) return fd;
    try {
      // Writable: some systems sync only a descriptor opened for writing.
      fd = openSync(walPath, 'r+');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    const dir = openSync(dirname(walPath), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    return fd;
  };

  const start = (): Promise<void> => {
    const covers = writes();
    const done = new Promise<void>((resolve, reject) => {
      const target = file();
      if (target === undefined) return resolve();
      syncFile(target, (err) => (err ? reject(err) : resolve()));
    }).then(() => {
      synced = Math.max(synced, covers);
    });
    const mine = { done, covers };
    running = mine;
    const clear = () => {
      if (running === mine) running = undefined;
    };
    done.then(clear, clear);
    return done;
  };

  const settle = (): Promise<void> => {
    if (last !== undefined) return last;
    const needed = writes();
    if (needed <= synced) return Promise.resolve();
    if (running === undefined) return start();
    // An fsync under way started before this commit's frames may have been written: the next one covers them.
    if (running.covers >= needed) return running.done;
    next ??= running.done
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return start();
      });
    return next;
  };

  return {
    settle,
    settleSync() {
      const covers = writes();
      if (covers <= synced) return;
      const target = file();
      if (target !== undefined) fdatasyncSync(target);
      synced = Math.max(synced, covers);
    },
    close(closeDb) {
      last ??= (async () => {
        await Promise.allSettled([running?.done, next]);
        const target = file();
        try {
          await closeDb();
        } finally {
          fd = undefined;
          // Whatever committed up to the close: the file may be gone by now (the last connection
          // checkpointed and deleted it), and syncing its descriptor is then harmless.
          if (target !== undefined) {
            try {
              fdatasyncSync(target);
            } finally {
              closeSync(target);
            }
          }
        }
      })();
      return last;
    },
  };
}

type Method = (...args: unknown[]) => unknown;

/**
 * The store with each call answered only once its writes are on disk
 * (`sync.settle()` after it; at once when it wrote nothing since the last
 * sync). A synchronous call (`insertSync`) syncs on its own thread, as a
 * synchronous call must; `externalChange` writes nothing. `close` lets the
 * last sync finish first. A failed sync fails the call as `toError` says.
 */
export function settleWrites<S extends object>(store: S, sync: WalSync, toError: (err: unknown) => Error): S {
  const out = { ...store };
  for (const key of Object.keys(store) as Array<keyof S & string>) {
    const fn = store[key] as unknown;
    if (typeof fn !== 'function') continue;
    const method = fn as Method;
    let wrapped: Method;
    if (key === 'close') {
      wrapped = () => sync.close(async () => void (await method()));
    } else if (key === 'externalChange') continue;
    else if (key === 'insertSync') {
      wrapped = (...args) => {
        const result = method(...args);
        try {
          sync.settleSync();
        } catch (err) {
          throw toError(err);
        }
        return result;
      };
    } else {
      wrapped = async (...args) => {
        const result = await method(...args);
        await sync.settle().catch((err: unknown) => {
          throw toError(err);
        });
        return result;
      };
    }
    out[key] = wrapped as S[typeof key];
  }
  return out;
}

/** A sync that failed: the commit happened, but whether it is on disk is not known, so the call fails. */
export const walSyncFailed =
  (path: string) =>
  (err: unknown): Error =>
    new DatabaseError('LJ_ERR_DATABASE', `database ${path}: its commit could not be synced to disk (${(err as Error).message})`, { cause: err });
