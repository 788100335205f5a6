/**
 * Who works on the queue: every process in the store's process registry,
 * every lease owner holding jobs now, and the owners seen claiming in the
 * last minute (idle ones with `running: []`). A registered process comes
 * with its host, pid, slots and uptime; a lease owner with no row (an older
 * litejobs, a store without the registry, a process gone but its leases not
 * yet run out) is shown by its owner id alone. Claims reach it through the
 * change feed; leases and the registry are read on demand (the processing
 * rows, by their partial index), at most once a second unless new claims came.
 */
import type { ChangeBatch, ChangeCursor, Store, WorkerProcessRecord } from '../store/store.js';
import { storedJson } from '../lib/stored-json.js';

export const SEEN_WITHIN_MS = 60_000;
const LEASES_TTL_MS = 1000;
/** History rows read back for the claims of the last minute when the feed starts. */
const START_ROWS = 100_000;

export interface WorkerView {
  owner: string;
  lastSeen: number;
  /** Its leased jobs (in claim order for a registered process). */
  running: Array<{ id: number; name: string; since: number; lockedUntil: number | null; progress: unknown }>;
  /** The process, from its registry row: absent for an owner that has none. */
  process?: ProcessView;
  /**
   * With `process`: its slots running a job, at most its concurrency. Jobs
   * claimed beyond that wait in its prefetch buffer, so the first `busy` of
   * `running` are taken to be the ones in slots (a buffer hands jobs out in
   * claim order).
   */
  busy?: number;
}

export type ProcessView = Omit<WorkerProcessRecord, 'owner'>;

export interface WorkersView {
  at: number;
  workers: WorkerView[];
}

export interface Workers {
  start(cursor: ChangeCursor): void;
  apply(batch: ChangeBatch): void;
  view(): Promise<WorkersView>;
}

export function createWorkers(store: Store, now: () => number): Workers {
  const leases = store.leases?.bind(store);
  if (!leases) throw new TypeError('the dashboard needs a store that lists leases (store.leases)');
  const processes = store.processes?.bind(store);
  const claimers = new Map<string, number>();
  let cached: { at: number; view: Promise<WorkersView> } | undefined;
  /** Claims of the minute before the feed started are read once, with the first leases. */
  let fromHistory = true;

  const seen = (owner: string, at: number) => {
    if ((claimers.get(owner) ?? Number.NEGATIVE_INFINITY) < at) claimers.set(owner, at);
  };

  const read = async (t: number): Promise<WorkersView> => {
    const since = t - SEEN_WITHIN_MS;
    const [found, registered] = await Promise.all([leases(since, fromHistory ? START_ROWS : 0), processes?.(t) ?? []]);
    if (fromHistory) for (const c of found.claimers) seen(c.owner, c.at);
    fromHistory = false;
    const byOwner = new Map<string, WorkerView>();
    for (const lease of found.running) {
      const owner = lease.owner ?? '(no owner)';
      let w = byOwner.get(owner);
      if (!w) {
        w = { owner, lastSeen: claimers.get(owner) ?? lease.since, running: [] };
        byOwner.set(owner, w);
      }
      w.lastSeen = Math.max(w.lastSeen, lease.since);
      w.running.push({ id: lease.id, name: lease.name, since: lease.since, lockedUntil: lease.lockedUntil, progress: lease.progress === null ? null : storedJson(lease.progress) });
    }
    for (const [owner, at] of claimers) {
      if (at < since) claimers.delete(owner);
      else if (!byOwner.has(owner)) byOwner.set(owner, { owner, lastSeen: at, running: [] });
    }
    for (const { owner, ...process } of registered) {
      let w = byOwner.get(owner);
      if (!w) {
        w = { owner, lastSeen: process.seenAt, running: [] };
        byOwner.set(owner, w);
      }
      w.lastSeen = Math.max(w.lastSeen, process.seenAt);
      w.running.sort((a, b) => a.since - b.since || a.id - b.id);
      w.process = process;
      w.busy = Math.min(w.running.length, process.concurrency);
    }
    return { at: t, workers: [...byOwner.values()].sort((a, b) => a.owner.localeCompare(b.owner)) };
  };

  return {
    start() {
      claimers.clear();
      cached = undefined;
      fromHistory = true;
    },
    apply(batch) {
      for (const c of batch.claimers) seen(c.owner, c.at);
      if (batch.claimers.length > 0) cached = undefined;
    },
    view() {
      const t = now();
      if (!cached || t - cached.at >= LEASES_TTL_MS || t < cached.at) {
        const view = read(t);
        cached = { at: t, view };
        view.catch(() => {
          if (cached?.view === view) cached = undefined;
        });
      }
      return cached.view;
    },
  };
}
