/**
 * This process's row in the store's process registry, while its queue runs
 * workers: written when the consumer starts, renewed by a heartbeat that
 * rides on the lease sweeper's timer (no timer of its own, nothing on the
 * claim path: one small write every `heartbeatMs`), deleted when it stops.
 * Each heartbeat also deletes the rows of processes long gone quiet
 * (PROCESS_DELETE_BEATS), so a killed process's row goes with a later beat
 * of any survivor; the view leaves it out sooner (PROCESS_GONE_BEATS). Its methods never
 * reject: a database out of reach is reported through the outage log, and
 * the next beat tries again.
 */
import { hostname } from 'node:os';
import type { Clock } from '../../lib/clock.js';
import { packageVersion } from '../../lib/package-version.js';
import type { Store, WorkerProcessRecord } from '../../store/store.js';
import type { OutageLog } from '../core/outage.js';

/** The longest wait between two heartbeats, ms. */
export const HEARTBEAT_MAX_MS = 5000;

/**
 * How often a process renews its row: half a lease, at most HEARTBEAT_MAX_MS,
 * and never more often than the sweeper it rides on runs. A killed process
 * then counts as gone about when its leases run out (three beats: one and a
 * half leases), or after 15 s with a lease of 10 s or more.
 */
export function heartbeatEvery(leaseMs: number, sweepMs: number): number {
  return Math.min(HEARTBEAT_MAX_MS, Math.max(sweepMs, Math.floor(leaseMs / 2)));
}

export interface ProcessRegistryOptions {
  store: Pick<Store, 'beatProcess' | 'removeProcess'>;
  clock: Clock;
  outage: OutageLog;
  owner: string;
  concurrency: number;
  names: readonly string[];
  heartbeatMs: number;
}

export interface ProcessRegistry {
  /** Writes the row now (the consumer started). */
  register(): Promise<void>;
  /** Renews the row when a heartbeat is due (called on every sweep). */
  beatIfDue(): Promise<void>;
  /** Deletes the row, after any heartbeat under way (a beat that landed later would write it back). */
  unregister(): Promise<void>;
}

const BEATING = 'renewing the process registry';
const LEAVING = 'leaving the process registry';

export function createProcessRegistry(o: ProcessRegistryOptions): ProcessRegistry {
  const { store, clock, outage } = o;
  const beat = store.beatProcess?.bind(store);
  const remove = store.removeProcess?.bind(store);
  let record: WorkerProcessRecord | undefined;
  let lastBeat = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<void> = Promise.resolve();
  let stopped = false;

  const write = (): Promise<void> => {
    if (!beat || !record || stopped) return Promise.resolve();
    const now = clock.now();
    lastBeat = now;
    inFlight = beat({ ...record, seenAt: now }).then(
      () => outage.recovered(BEATING),
      (err: unknown) => void outage.failed(BEATING, err),
    );
    return inFlight;
  };

  return {
    register() {
      const now = clock.now();
      stopped = false;
      record = {
        owner: o.owner,
        host: hostname(),
        pid: process.pid,
        concurrency: o.concurrency,
        names: [...o.names],
        version: packageVersion(),
        startedAt: now,
        seenAt: now,
        heartbeatMs: o.heartbeatMs,
      };
      return write();
    },
    beatIfDue() {
      if (clock.now() - lastBeat < o.heartbeatMs) return Promise.resolve();
      return write();
    },
    async unregister() {
      stopped = true;
      await inFlight;
      if (remove && record) await remove(o.owner).catch((err: unknown) => void outage.failed(LEAVING, err));
      record = undefined;
    },
  };
}
