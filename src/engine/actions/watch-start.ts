/**
 * "From now on" for `watch()`, exact for this process's own writes: a watch
 * without a cursor takes "now" from its first read, and a write this queue
 * sends after `subscribe()` returns must come after it. On SQLite the read
 * runs within the call; on PostgreSQL it is one query on one connection of
 * the pool, and an `enqueue` sent next on another connection could commit
 * before the read's snapshot and never be seen. So while a watch's first
 * read is under way, the queue's other store calls wait for its answer
 * (about a millisecond); at other times they pass straight through.
 */
import type { Store } from '../../store/store.js';

/**
 * Calls that answer at once (no I/O), the first read itself, and inserts
 * through the caller's own connection: those commit with the caller's
 * transaction, whenever that is, and holding one could wait on a pool the
 * caller's own locks keep busy.
 */
const UNGATED = new Set(['changes', 'insertSync', 'insertVia', 'externalChange', 'watchChanges', 'watchFinished', 'close']);

/** The store's methods, own or inherited (a store may be a class instance). */
function methodNames(store: Store): string[] {
  const out = new Set<string>();
  for (let o: object | null = store; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const key of Object.getOwnPropertyNames(o)) if (key !== 'constructor' && typeof (store as unknown as Record<string, unknown>)[key] === 'function') out.add(key);
  }
  return [...out];
}

export interface WatchStartGate {
  /** The store the queue, its engine and its consumer use. */
  store: Store;
  /** Holds the store's other calls until `read` (one `changes` call) settles. */
  hold(read: Promise<unknown>): void;
}

export function watchStartGate(inner: Store): WatchStartGate {
  let gate: Promise<void> | undefined;
  const store: Record<string, unknown> = { ...inner };
  for (const key of methodNames(inner)) {
    const fn = (inner as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[key]!;
    store[key] = UNGATED.has(key)
      ? (...args: unknown[]) => fn.apply(inner, args)
      : (...args: unknown[]) => (gate === undefined ? fn.apply(inner, args) : gate.then(() => fn.apply(inner, args)));
  }
  return {
    store: store as unknown as Store,
    hold(read) {
      const next: Promise<void> = Promise.all([gate, read.catch(() => undefined)]).then(() => {
        if (gate === next) gate = undefined;
      });
      gate = next;
    },
  };
}
