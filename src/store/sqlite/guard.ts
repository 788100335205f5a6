/**
 * Wraps every store method with what a shared SQLite file needs from the
 * event loop's side:
 *
 * - Waiting for another process's write lock without blocking the loop. The
 *   connection's own busy timeout is 0 (SQLite's busy handler sleeps on the
 *   calling thread: timers, lease renewal and HTTP would stall for the whole
 *   wait); a busy call returns at once and is retried after a pause on the
 *   clock, until `busyTimeoutMs` has passed in all. Every write that can meet
 *   a lock starts with BEGIN IMMEDIATE or is one autocommitted statement, so a
 *   busy error means nothing was written and the retry is safe.
 * - Typed errors: every SQLite failure leaves as a DatabaseError; a call on a
 *   closed store as a QueueClosedError.
 * - A full disk: the WAL would stay at its high-water mark and keep the disk
 *   full after space comes back, so it is checkpointed and truncated. That
 *   copies back the pages committed since the last checkpoint first, which
 *   may need room the disk does not have yet (or a reader may hold the WAL):
 *   then it is tried again on the clock, backing off, until it succeeds or
 *   the store closes.
 * - At `durability: 'full'`, answers only once the call's commits are on
 *   disk (GuardOptions `sync`).
 */
import { sleep, type Clock, type TimerHandle } from '../../lib/clock.js';
import { DatabaseError, QueueClosedError } from '../../errors.js';
import type { Store } from '../store.js';
import { toDatabaseError } from './open.js';
import { READS, walSyncFailed, type WalSync } from './wal-sync.js';

/**
 * How long SQLite itself waits for a lock before the call returns to the
 * event loop: not at all. Its busy handler sleeps in steps (1, 2, 5 … ms), each
 * ending only once the thread is scheduled again: on a loaded machine a
 * nominal 10 ms kept the loop blocked for 30 to 170 ms at a time.
 */
export const SQLITE_BUSY_WAIT_MS = 0;
const MAX_PAUSE_MS = 25;
/** After SQLITE_FULL, first and longest pause before the WAL is truncated again, when it could not be at once. */
export const FULL_RETRY_MIN_MS = 250;
export const FULL_RETRY_MAX_MS = 10_000;

export interface GuardOptions {
  path: string;
  clock: Clock;
  busyTimeoutMs: number;
  isOpen(): boolean;
  /**
   * Called after SQLITE_FULL, before the error is thrown (`retry` false), to
   * give back the space the WAL holds. False when it could not yet: it is
   * called again (`retry` true) after FULL_RETRY_MIN_MS, then ever less
   * often, until it returns true or the store closes. Never throws.
   */
  onFull(retry: boolean): boolean;
  /**
   * At `durability: 'full'`: each call that may write is answered once its
   * commit is synced (wal-sync.ts), `insertSync` on its own thread, and
   * `close` closes with every commit synced.
   */
  sync?: WalSync;
}

const codeOf = (err: unknown): string => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
};

/**
 * Methods answered synchronously underneath that must stay synchronous
 * (polled on a timer; an enqueue inside the application's transaction).
 */
const SYNC_METHODS = new Set(['externalChange', 'insertSync']);

export function guardStore(store: Store, o: GuardOptions): Store {
  let fullRetry: TimerHandle | undefined;
  let fullRetryMs = FULL_RETRY_MIN_MS;
  const cancelFullRetry = () => {
    if (fullRetry !== undefined) o.clock.clearTimeout(fullRetry);
    fullRetry = undefined;
  };
  const armFullRetry = () => {
    fullRetry = o.clock.setTimeout(() => {
      fullRetry = undefined;
      if (!o.isOpen() || o.onFull(true)) return;
      fullRetryMs = Math.min(FULL_RETRY_MAX_MS, fullRetryMs * 2);
      armFullRetry();
    }, fullRetryMs);
    (fullRetry as { unref?: () => void }).unref?.(); // waiting for space must not keep the process alive
  };
  const onFull = () => {
    cancelFullRetry();
    fullRetryMs = FULL_RETRY_MIN_MS;
    if (!o.onFull(false)) armFullRetry();
  };

  const fail = (err: unknown): never => {
    if (codeOf(err).startsWith('SQLITE_FULL')) onFull();
    if (!o.isOpen() && !(err instanceof DatabaseError)) throw new QueueClosedError();
    throw toDatabaseError(err, o.path);
  };

  const lockedPastTimeout = (err: unknown, waited = `busyTimeout (${o.busyTimeoutMs} ms)`) =>
    new DatabaseError('LJ_ERR_DATABASE', `database ${o.path} is locked by another connection past ${waited}`, { cause: err });

  const withRetry = async (call: () => unknown): Promise<unknown> => {
    const started = o.clock.now();
    for (let pause = 1; ; pause = Math.min(MAX_PAUSE_MS, pause * 2)) {
      try {
        return await call();
      } catch (err) {
        const busy = codeOf(err).startsWith('SQLITE_BUSY');
        if (!busy || o.clock.now() - started + pause > o.busyTimeoutMs) {
          if (busy) throw lockedPastTimeout(err);
          return fail(err);
        }
        await sleep(o.clock, pause);
      }
    }
  };

  const { sync } = o;
  const syncFailed = walSyncFailed(o.path);
  const guard = (key: string, fn: Method): Method => {
    if (key === 'close') {
      return (...args) => {
        cancelFullRetry();
        return sync ? sync.close(async () => void (await fn(...args))) : fn(...args);
      };
    }
    if (SYNC_METHODS.has(key)) {
      return (...args) => {
        if (!o.isOpen()) throw new QueueClosedError();
        let result: unknown;
        try {
          result = fn(...args);
        } catch (err) {
          // A synchronous call is not retried: SQLite itself waited, for its connection's busy timeout.
          if (codeOf(err).startsWith('SQLITE_BUSY')) throw lockedPastTimeout(err, "the connection's busy timeout");
          return fail(err);
        }
        try {
          sync?.settleSync();
        } catch (err) {
          throw syncFailed(err);
        }
        return result;
      };
    }
    const call: Method = (...args) => {
      if (!o.isOpen()) return Promise.reject(new QueueClosedError());
      return withRetry(() => fn(...args));
    };
    if (sync === undefined || READS.has(key)) return call;
    return async (...args) => {
      const result = await call(...args);
      await sync.settle().catch((err: unknown) => Promise.reject(syncFailed(err)));
      return result;
    };
  };
  return mapMethods(store, guard);
}

type Method = (...args: unknown[]) => unknown;

/**
 * The object with each method replaced by `wrap`'s: same keys, and each
 * member typed as it was (a wrapper forwards its arguments and result
 * untouched, which the compiler cannot see through a variadic forward).
 */
function mapMethods<S extends object>(obj: S, wrap: (key: string, fn: Method) => Method): { [K in keyof S]: S[K] } {
  const out = {} as { [K in keyof S]: S[K] };
  for (const key of Object.keys(obj) as Array<keyof S & string>) {
    const member = obj[key];
    out[key] = typeof member === 'function' ? (wrap(key, member as Method) as S[typeof key]) : member;
  }
  return out;
}
