/**
 * Wraps every store method with what a shared SQLite file needs from the
 * event loop's side:
 *
 * - Waiting for another process's write lock without blocking the loop. The
 *   connection's own busy timeout is a few ms (SQLite's busy handler sleeps
 *   on the calling thread: timers, lease renewal and HTTP would stall for the
 *   whole wait); past it, the call is retried after a pause on the clock,
 *   until `busyTimeoutMs` has passed in all. Every write that can meet a lock
 *   starts with BEGIN IMMEDIATE or is one autocommitted statement, so a busy
 *   error means nothing was written and the retry is safe.
 * - Typed errors: every SQLite failure leaves as a DatabaseError; a call on a
 *   closed store as a QueueClosedError.
 * - A full disk: the WAL would stay at its high-water mark and keep the disk
 *   full after space comes back, so it is checkpointed and truncated.
 */
import { sleep, type Clock } from '../../lib/clock.js';
import { DatabaseError, QueueClosedError } from '../../errors.js';
import type { Store } from '../store.js';
import { toDatabaseError } from './open.js';

/** How long SQLite itself waits for a lock before the call returns to the event loop. */
export const SQLITE_BUSY_WAIT_MS = 10;
const MAX_PAUSE_MS = 25;

export interface GuardOptions {
  path: string;
  clock: Clock;
  busyTimeoutMs: number;
  isOpen(): boolean;
  /** Called after SQLITE_FULL, before the error is thrown. */
  onFull(): void;
}

const codeOf = (err: unknown): string => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
};

/** Methods answered synchronously underneath that must stay synchronous (polled on a timer). */
const SYNC_METHODS = new Set(['externalChange']);

export function guardStore(store: Store, o: GuardOptions): Store {
  const fail = (err: unknown): never => {
    if (codeOf(err).startsWith('SQLITE_FULL')) o.onFull();
    if (!o.isOpen() && !(err instanceof DatabaseError)) throw new QueueClosedError();
    throw toDatabaseError(err, o.path);
  };

  const withRetry = async (call: () => unknown): Promise<unknown> => {
    const started = o.clock.now();
    for (let pause = 1; ; pause = Math.min(MAX_PAUSE_MS, pause * 2)) {
      try {
        return await call();
      } catch (err) {
        const busy = codeOf(err).startsWith('SQLITE_BUSY');
        if (!busy || o.clock.now() - started + pause > o.busyTimeoutMs) {
          if (busy) {
            throw new DatabaseError('LJ_ERR_DATABASE', `database ${o.path} is locked by another connection past busyTimeout (${o.busyTimeoutMs} ms)`, { cause: err });
          }
          return fail(err);
        }
        await sleep(o.clock, pause);
      }
    }
  };

  const out: Record<string, unknown> = {};
  for (const [key, fn] of Object.entries(store) as Array<[string, (...args: unknown[]) => unknown]>) {
    if (key === 'close') {
      out[key] = fn;
    } else if (SYNC_METHODS.has(key)) {
      out[key] = (...args: unknown[]) => {
        if (!o.isOpen()) throw new QueueClosedError();
        try {
          return fn(...args);
        } catch (err) {
          return fail(err);
        }
      };
    } else {
      out[key] = (...args: unknown[]) => {
        if (!o.isOpen()) return Promise.reject(new QueueClosedError());
        return withRetry(() => fn(...args));
      };
    }
  }
  return out as unknown as Store;
}
