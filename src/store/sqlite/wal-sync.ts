/**
 * `durability: 'full'` without blocking the event loop. SQLite's own
 * `synchronous = FULL` syncs the WAL inside each commit, on the calling
 * thread: the loop stood still for the whole sync, and every HTTP request,
 * timer and lease renewal waited behind it.
 *
 * Instead the connection commits at `synchronous = NORMAL` (the commit's
 * frames are written to the WAL, not synced) and its caller is answered once
 * a sync of the WAL file (fdatasync), run on libuv's thread pool, has
 * covered the commit: a caller's promise settles after its commit is on
 * disk, as under FULL. The commits made while one sync runs share the next
 * one (group commit): a sync covers every frame written before it started.
 *
 * Why syncing the WAL file is enough: a commit's frames stay in the WAL
 * until a checkpoint copies them into the database file, and SQLite syncs
 * the database file before the WAL is reused or truncated (in WAL mode at
 * NORMAL or FULL alike), and the WAL's header when it starts over. So a
 * commit is either in the WAL, which the sync covers, or already in a
 * synced database file. The WAL keeps its inode while any connection is
 * open (SQLite truncates and rewrites it, never replaces it), and this
 * store's connection is open as long as this is.
 *
 * What differs from FULL: a commit is seen by other connections before its
 * sync, and a sync that fails leaves the commit in place (FULL would have
 * failed the commit itself). So the call fails, every later one too (see
 * `failed`), and the caller cannot tell whether its write will survive a
 * crash of the machine: one that retries may write twice.
 */
import { closeSync, fdatasync, fdatasyncSync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
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
 * `walPath`: the WAL SQLite writes, as SQLite names it (the database's file
 * as SQLite resolved it, links followed, plus `-wal`: a path of the caller's
 * own may be a symbolic link, or relative to a directory since left).
 * `writes`: the connection's count of rows written so far (SQLite's
 * total_changes()), which grows with each commit. `syncFile`: the sync run
 * off the event loop (tests watch it). Throws when the WAL cannot be opened.
 */
export function createWalSync(walPath: string, writes: () => number, syncFile: (fd: number, done: (err: Error | null) => void) => void = fdatasync): WalSync {
  // Writable: some systems sync only a descriptor opened for writing. The WAL exists: the store wrote at its open.
  let fd: number | undefined = openSync(walPath, 'r+');
  syncDirectory(dirname(walPath));
  /** Writes covered by the last sync that completed. */
  let synced = writes();
  /** The newest sync under way and the writes it covers. */
  let running: { done: Promise<void>; covers: number } | undefined;
  /** Every sync under way (a settle between one's end and the next's start may start another): close waits for them all. */
  const inFlight = new Set<Promise<void>>();
  /** The sync that starts once `running` ends: every caller since `running` started waits for it. */
  let next: Promise<void> | undefined;
  /** Set once close() began: the last sync, which every later caller waits for. */
  let last: Promise<void> | undefined;
  /**
   * A sync that failed, for good. The kernel may have dropped the pages it
   * could not write, so a later sync can succeed with a hole in the WAL
   * before the frames it covers, and recovery after a crash stops at the
   * hole: no later commit can be answered as safe. The store has to be opened again.
   */
  let failed: Error | undefined;

  const target = (): number => {
    if (failed) throw failed;
    if (fd === undefined) throw new Error(`the WAL ${walPath} is closed`);
    return fd;
  };
  const fail = (err: unknown): never => {
    failed ??= err instanceof Error ? err : new Error(String(err));
    throw failed;
  };

  const start = (): Promise<void> => {
    const covers = writes();
    const done = new Promise<void>((resolve, reject) => {
      syncFile(target(), (err) => (err ? reject(err) : resolve()));
    }).then(() => {
      synced = Math.max(synced, covers);
    }, fail);
    const mine = { done, covers };
    running = mine;
    inFlight.add(done);
    const clear = () => {
      inFlight.delete(done);
      if (running === mine) running = undefined;
    };
    done.then(clear, clear);
    return done;
  };

  const settle = (): Promise<void> => {
    if (last !== undefined) return last;
    if (failed) return Promise.reject(failed);
    const needed = writes();
    if (needed <= synced) return Promise.resolve();
    if (running === undefined) return start();
    // A sync under way started before this commit's frames may have been written: the next one covers them.
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
      try {
        fdatasyncSync(target());
      } catch (err) {
        fail(err);
      }
      synced = Math.max(synced, covers);
    },
    close(closeDb) {
      last ??= (async () => {
        // Including a `next` set up meanwhile by a call that committed while the close waited.
        while (inFlight.size > 0 || next !== undefined) await Promise.allSettled([...inFlight, next]);
        const mine = fd;
        fd = undefined;
        try {
          await closeDb();
        } finally {
          // Whatever committed up to the close: the file may be gone by now (the last connection
          // checkpointed and deleted it), and syncing its descriptor is then harmless.
          if (mine !== undefined) {
            try {
              if (!failed) fdatasyncSync(mine);
            } finally {
              closeSync(mine);
            }
          }
        }
        if (failed) throw failed;
      })();
      return last;
    },
  };
}

/**
 * The directory's entry for the WAL, on disk: SQLite syncs it with the WAL's
 * header, and this is one more try. Best effort, as SQLite's own: a
 * directory that cannot be opened for reading still holds a working database.
 */
function syncDirectory(dir: string): void {
  let handle: number;
  try {
    handle = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(handle);
  } catch {
    // as above
  } finally {
    closeSync(handle);
  }
}

/**
 * Store methods that only read: answered without waiting for the syncs of
 * other calls' commits (a clock read, say, whose round trip bounds the
 * clock's error). A method left off this list only waits longer.
 */
export const READS: ReadonlySet<string> = new Set([
  'nameRetention', 'expiredHolds', 'held', 'expiredLeases', 'dueJobs', 'nextDueAt', 'steps', 'jobLogs', 'hasMessage', 'unseenMessages',
  'jobIdByKey', 'publishedValues', 'get', 'outcome', 'list', 'history', 'children', 'childCounts', 'stats', 'changes',
  'countByStateAndName', 'leases', 'cursorAt', 'paused', 'pauses', 'databaseNow', 'nameLimits', 'limits', 'groupCounts', 'runningByName',
  'schedules', 'processes', 'ping', 'diagnose',
]);

/** A sync that failed: the commit happened, but whether it is on disk is not known, so the call fails. */
export const walSyncFailed =
  (path: string) =>
  (err: unknown): Error =>
    new DatabaseError('LJ_ERR_DATABASE', `database ${path}: its commit could not be synced to disk (${(err as Error).message})`, { cause: err });

/**
 * The WAL sync of the store's connection `db`, for the WAL SQLite itself
 * writes (the main database's file as SQLite resolved it). When it cannot be
 * opened, the store's connection and its checkpointer are closed and the
 * open fails: a 'full' store that cannot sync answers nothing.
 */
export function openWalSync(db: Database.Database, checkpointer: { close(): Promise<void> }, writes: () => number): WalSync {
  const main = (db.pragma('database_list') as Array<{ name: string; file: string }>).find((d) => d.name === 'main')!.file;
  try {
    return createWalSync(`${main}-wal`, writes);
  } catch (err) {
    void checkpointer.close().catch(() => undefined);
    db.close();
    throw new DatabaseError('LJ_ERR_DATABASE', `database ${main}: its WAL cannot be opened to sync it (${(err as Error).message})`, { cause: err });
  }
}
