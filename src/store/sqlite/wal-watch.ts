/**
 * Tells the claim loop at once when another process commits to the SQLite
 * file, instead of at its next `PRAGMA data_version` poll.
 *
 * Every commit in WAL mode appends frames to `<db>-wal` with write(2), and
 * inotify (fs.watch) reports the write within microseconds, to every process.
 *
 * The directory is watched, not the WAL itself: the WAL is created by the
 * first connection, cut to 0 bytes by a TRUNCATE checkpoint, and deleted when
 * the last connection closes, and a watch on the file would die with the inode
 * it was put on. The directory's watch reports all three, and the writes to
 * whichever WAL exists next, by name, with nothing to re-arm.
 *
 * An event is only a hint. It also comes for this process's own commits and
 * for the WAL's creation or deletion; `committed()` (data_version, which moves
 * only for other connections' commits) decides. The events of one turn of the
 * event loop are looked at once. Anything missed is found by the data_version
 * poll, which stays as the backstop.
 *
 * A look can come too early. SQLite publishes a commit in the shared-memory
 * index a moment after its last write(2) to the WAL, and the wake-up from that
 * write often runs this process ahead of the writer, on the writer's CPU. With
 * both processes on one CPU, ~60% of first looks found nothing, and the next
 * look, on the shortest timer (1 ms), made those wake-ups ~1.2 ms late. So
 * after a miss that this connection's own writes do not explain, the thread
 * sleeps once for ~80 µs (the writer gets the CPU and finishes its commit) and
 * looks again; failing that, once more after 1 ms.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';

export interface WalWatchOptions {
  /** The database file; its WAL is `<path>-wal`. */
  path: string;
  /** True when another connection committed since the claim loop last looked (must not reset what externalChange() compares with). */
  committed(): boolean;
  /** A count that moves whenever this connection writes (SQLite's total_changes()). */
  ownWrites(): number;
  /** Another connection committed. */
  onChange(): void;
  /** The watch failed; the poll still finds other processes' commits. */
  onError(err: Error): void;
}

/**
 * Second look after a miss, ms. Real time, not the queue's clock: it waits
 * for another process's write, which a virtual clock does not move.
 */
const RECHECK_MS = 1;
/** The short sleep before the second look, ms (Atomics.wait sleeps ~80 µs for it: the kernel's timer slack). */
const YIELD_MS = 0.01;
/**
 * No short sleep this soon after a look saw this connection's writes: the
 * event is likely its own (whose look may come a turn later). A busy consumer
 * never sleeps.
 */
const OWN_WRITE_MS = 1;
/** At most one short sleep per this many ms (≤ ~8% of the thread): a long write by another process (a large batch) cannot stall it. */
const YIELD_EVERY_MS = 1;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Starts watching; the returned function stops it. Never keeps the process alive. */
export function watchWal(o: WalWatchOptions): () => void {
  const wal = `${basename(o.path)}-wal`;
  let immediate: NodeJS.Immediate | undefined;
  let recheck: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  let ownCount = o.ownWrites();
  let ownAt = performance.now();
  let yieldedAt = Number.NEGATIVE_INFINITY;

  const look = (fromEvent: boolean) => {
    try {
      if (o.committed()) return o.onChange();
      if (!fromEvent) return;
      const now = performance.now();
      const own = o.ownWrites();
      if (own !== ownCount) [ownCount, ownAt] = [own, now];
      if (now - ownAt >= OWN_WRITE_MS && now - yieldedAt >= YIELD_EVERY_MS) {
        yieldedAt = now;
        Atomics.wait(sleeper, 0, 0, YIELD_MS);
        if (o.committed()) return o.onChange();
      }
      if (recheck === undefined) {
        recheck = setTimeout(() => {
          recheck = undefined;
          look(false);
        }, RECHECK_MS);
        recheck.unref();
      }
    } catch (err) {
      // An exception here would be uncaught (an fs event's callback): report it, the poll goes on.
      o.onError(err as Error);
    }
  };

  const stop = () => {
    watcher?.close();
    watcher = undefined;
    if (immediate !== undefined) clearImmediate(immediate);
    if (recheck !== undefined) clearTimeout(recheck);
    immediate = recheck = undefined;
  };

  try {
    watcher = watch(dirname(resolve(o.path)), { persistent: false }, (_event, name) => {
      // `name` is null only when the platform cannot say: take it as the WAL.
      if ((name !== null && name !== wal) || immediate !== undefined) return;
      immediate = setImmediate(() => {
        immediate = undefined;
        look(true);
      });
    });
    watcher.on('error', (err) => {
      stop();
      o.onError(err);
    });
  } catch (err) {
    // No watch (e.g. the inotify watch limit is reached): the poll still finds every commit.
    o.onError(err as Error);
  }
  return stop;
}
