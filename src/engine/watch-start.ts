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
import type { Store } from '../store/store.js';

/** Calls that answer at once (no I/O), and the first read itself. */
const UNGATED = new Set(['changes', 'insertSync', 'externalChange', 'watchChanges', 'watchFinished', 'close']);

export interface WatchStartGate {
  /** The store the queue, its engine and its consumer use. */
  store: Store;
  /** Holds the store's other calls until `read` settles. */
  hold(read: Promise<unknown>): void;
}

export function watchStartGate(inner: Store): WatchStartGate {
  let gate: Promise<void> | undefined;
  const store: Record<string, unknown> = { ...inner };
  for (const [key, value] of Object.entries(inner)) {
    if (typeof value !== 'function' || UNGATED.has(key)) continue;
    const fn = value as (...args: unknown[]) => Promise<unknown>;
    store[key] = (...args: unknown[]) => (gate === undefined ? fn.apply(inner, args) : gate.then(() => fn.apply(inner, args)));
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
