/**
 * The embedded store: one SQLite file in WAL mode, one connection per process.
 * Every write that starts from a read runs in `BEGIN IMMEDIATE`, so several
 * processes can share the file without a deferred transaction's SQLITE_BUSY.
 */
import type Database from 'better-sqlite3';
import { FINISHED_STATES, JobState } from '../../../machines/job.machine.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import type { NewFlowNode, Store } from '../store.js';
import { createSqliteAdmin } from './admin.js';
import { createSqliteLimits } from './limits.js';
import { createSqliteSchedules } from './schedules.js';
import { createSqliteSteps } from './steps.js';
import { createSqliteMessages } from './messages.js';
import { createSqliteLogs } from './logs.js';
import { createSqliteProcesses } from './processes.js';
import { browseJobs } from './browse-jobs.js';
import { startCheckpointer } from './checkpointer.js';
import { guardStore, SQLITE_BUSY_WAIT_MS } from './guard.js';
import { openWalSync } from './wal-sync.js';
import { createClaim } from './claim.js';
import { sqliteInsertOn } from './insert.js';
import { newJobIndexer } from './index-new.js';
import { createSyncInsert } from './insert-sync.js';
import { createSqliteFlows } from './flows.js';
import { createTransition } from './transition.js';
import { createDashboardReads } from './dashboard-reads.js';
import { createFullDiskRecovery } from './disk-full.js';
import { listJobs } from './list-jobs.js';
import { namesStatement } from './names-statement.js';
import { openDatabase, toDatabaseError, type OpenOptions } from './open.js';
import { attachAppDatabase, type SqliteDatabase } from './app-database.js';
import { toHistoryEntry, toJobOutcome, type HistoryRow, type OutcomeRow } from '../rows.js';
import { toJobRecord, type JobRow } from '../job-columns.js';
import { createPurge } from './purge.js';
import { createRetentionPurge } from './retention-purge.js';
import { createSqliteRemoval } from './remove.js';
import { sql } from './sql.js';
import { watchWal } from './wal-watch.js';
import { createLeaseTokens } from '../lease-tokens.js';
import { foldStats } from '../queue-stats.js';

export interface SqliteStoreOptions extends OpenOptions {
  /** Record each transition in `job_history`. */
  history: boolean;
  /** Finished jobs are deleted after a while: build the index that finds them by age now, not on the first purge. */
  retentionIndex?: boolean;
  /** Timers for lock waits and WAL checkpoints. */
  clock?: Clock;
  /**
   * The application's own connection to the same file: insertSync() writes
   * with it, inside the application's transaction. The store still opens its
   * own connection for everything else, and never closes this one.
   */
  database?: SqliteDatabase;
}

export function createSqliteStore(options: SqliteStoreOptions): Store {
  const clock = options.clock ?? systemClock;
  const db = openDatabase({ ...options, shared: options.database !== undefined });
  const appDb = options.database as Database.Database | undefined;
  if (appDb) {
    try {
      attachAppDatabase(appDb, options.busyTimeoutMs, (message) => options.onWarning?.(message));
    } catch (err) {
      db.close();
      throw err;
    }
  }
  // From here on SQLite does not wait for a lock: waits are retried from the event loop (guard.ts).
  db.pragma(`busy_timeout = ${Math.min(SQLITE_BUSY_WAIT_MS, options.busyTimeoutMs)}`);
  const recordHistory = options.history;
  const tokens = createLeaseTokens();

  const s = {

    heartbeat: db.prepare(sql('heartbeat')),
    releaseHold: db.prepare(sql('release-hold')),
    expiredHolds: db.prepare(sql('expired-holds')),
    holdsLease: db.prepare(sql('holds-lease')).pluck(),
    progress: db.prepare(sql('progress')),
    progressHistory: db.prepare(sql('insert-progress-history')),
    expired: namesStatement(db, sql('expired-leases')),
    due: db.prepare(sql('due-jobs')),
    nextDue: db.prepare(sql('next-due-at')),
    nextPending: db.prepare(sql('next-pending-at')),
    get: db.prepare(sql('get')),
    outcome: db.prepare(sql('outcome')),
    historyOf: db.prepare(sql('history')),
    stats: db.prepare(sql('stats')),
    dataVersion: db.prepare('PRAGMA data_version').pluck(),
    totalChanges: db.prepare('SELECT total_changes()').pluck(),
  };
  const purge = createPurge(db);

  const indexNewJobs = newJobIndexer(db);

  const insert = sqliteInsertOn(db);
  const flows = createSqliteFlows(db, recordHistory, insert);
  const insertFlowTx = db.transaction((root: NewFlowNode, waiting: string, at: number) => {
    const out = flows.insertFlow(root, waiting, at);
    indexNewJobs();
    return out;
  });

  const admin = createSqliteAdmin(db, options.path);
  const schedules = createSqliteSchedules(db, insert);
  const limits = createSqliteLimits(db);
  const claimTx = createClaim(db, indexNewJobs, recordHistory, admin.paused);

  const transitionTx = createTransition(db, { purge, flows, recordHistory, indexNewJobs });
  // A progress update and its history row (a change of the feed) land together, under the lease.
  const progressTx = db.transaction((id: number, token: string, progress: string, at: number): boolean => {
    if (s.progress.run({ id, token, progress }).changes !== 1) return false;
    if (recordHistory) s.progressHistory.run({ id, token, progress, at });
    return true;
  });

  // The retention indexes exist only once some queue asked for them (retention-purge.ts).
  const retention = createRetentionPurge(db, { purge, clock, indexNewJobs });
  const ensureRetentionIndex = () => retention.ensureByAge();
  if (options.retentionIndex) {
    try {
      ensureRetentionIndex();
    } catch (err) {
      db.close();
      throw toDatabaseError(err, options.path);
    }
  }
  const checkpointer =
    options.path === ':memory:' || options.path === ''
      ? undefined
      : startCheckpointer({
          path: options.path,
          synchronous: options.durability === 'full' ? 'FULL' : 'NORMAL',
          busyTimeoutMs: options.busyTimeoutMs,
          clock,
          onError: (message) => options.onWarning?.(message),
        });

  let lastDataVersion = s.dataVersion.get() as number;
  /** Open WAL watches (watchChanges), stopped by close(). */
  const walWatches = new Set<() => void>();

  const removal = createSqliteRemoval(db, { purge, indexNewJobs, finishedIndex: () => void ensureRetentionIndex() });

  const recoverFromFull = createFullDiskRecovery(db, options.path, options.onWarning);
  const dashboard = createDashboardReads(db);

  const store: Store = {
    insert: async (jobs, at) => insert(jobs, at),
    insertSync: createSyncInsert(db, appDb, options.busyTimeoutMs, Math.min(SQLITE_BUSY_WAIT_MS, options.busyTimeoutMs)),
    ...createSqliteSteps(db),
    ...createSqliteMessages(db, recordHistory),
    ...createSqliteLogs(db),
    claim: async (req) => claimTx.immediate(req, tokens.next()),
    transition: async (reqs) => transitionTx.immediate(reqs),
    insertFlow: async (root, waiting, at) => insertFlowTx.immediate(root, waiting, at),
    children: async (parentId, after, limit) => flows.children(parentId, after, limit),
    childCounts: async (parentId) => flows.childCounts(parentId),
    heartbeat: async (id, token, lockedUntil) => (s.heartbeat.get({ id, token, lockedUntil }) as { running: number } | undefined)?.running === 1,
    expiredHolds: async (now, limit) => (s.expiredHolds.all({ now, limit }) as Array<{ id: number; token: string }>),
    releaseHold: async (hold) => (s.releaseHold.get(hold) as { state: string } | undefined)?.state ?? null,
    progress: async (id, token, progress, at) => progressTx.immediate(id, token, progress, at),
    held: async (leases) => leases.map(({ id, token }) => s.holdsLease.get({ id, token }) !== undefined),
    expiredLeases: async (names, now, limit) => (s.expired.all(names, { now, limit }) as JobRow[]).map(toJobRecord),
    dueJobs: async (names, states, now, limit) => {
      const out = [];
      for (const state of states) {
        for (const name of names) {
          if (out.length >= limit) return out;
          for (const row of s.due.all({ state, name, now, limit: limit - out.length }) as JobRow[]) out.push(toJobRecord(row));
        }
      }
      return out;
    },
    nextDueAt: async (names, states) => {
      let min: number | null = null;
      for (const state of states) {
        for (const name of names) {
          const row = state === JobState.pending ? s.nextPending.get({ name }) : s.nextDue.get({ state, name });
          const at = (row as { at: number | null }).at;
          if (at !== null && (min === null || at < min)) min = at;
        }
      }
      return min;
    },
    get: async (id) => {
      const row = s.get.get({ id }) as JobRow | undefined;
      return row ? toJobRecord(row) : undefined;
    },
    outcome: async (id) => {
      const row = s.outcome.get({ id }) as OutcomeRow | undefined;
      return row ? toJobOutcome(row) : undefined;
    },
    list: async (filter) => listJobs(db, filter),
    // Finished states page along the retention index: built the first time one is browsed (not by a read-only caller).
    browse: async (filter) => {
      // A read-only caller never builds the index (a write, and a long one on a big file): without it, a page sorts.
      if (FINISHED_STATES.includes(filter.state) && !filter.readOnly) ensureRetentionIndex();
      return browseJobs(db, filter);
    },
    history: async (id) => (s.historyOf.all({ id }) as HistoryRow[]).map(toHistoryEntry),
    stats: async () => foldStats(s.stats.all() as Array<{ state: string; name: string; n: number }>),
    externalChange: () => {
      // data_version changes only when another connection commits.
      const v = s.dataVersion.get() as number;
      if (v === lastDataVersion) return false;
      lastDataVersion = v;
      return true;
    },
    backup: (destination, onProgress) => admin.backup(destination, onProgress),
    setPaused: async (name, paused, at) => admin.setPaused(name, paused, at),
    paused: async () => admin.paused(),
    pauseLimit: async (kind, key, until, at) => limits.pause(kind, key, until, at),
    pauses: async (now) => limits.pauses(now),
    // Every process sharing the file runs on this host (WAL needs shared memory), and reads this clock.
    databaseNow: () => Date.now(),
    setGroupConcurrency: async (group, concurrency, at) => limits.setGroupConcurrency(group, concurrency, at),
    saveNameLimits: async (name, rule, at) => limits.saveNameLimits(name, rule, at),
    nameLimits: async () => limits.nameLimits(),
    limits: async () => limits.all(),
    groupCounts: async (limit) => limits.groupCounts(limit),
    runningByName: async (names) => limits.runningByName(names),
    saveSchedule: async (schedule, at) => schedules.save(schedule, at),
    deleteSchedule: async (name) => schedules.delete(name),
    schedules: async () => schedules.all(),
    fireSchedule: async (read, jobs, slot, at) => schedules.fire(read, jobs, slot, at),
    ping: async () => admin.ping(),
    diagnose: async (o) => admin.diagnose(o),
    // A store opened without `retentionIndex` builds the index on its first purge, before the purge's transaction.
    purgeFinished: async (state, before, limit, o) => retention.finished(state, before, limit, o),
    purgeNamed: async (rule, limit) => retention.named(rule, limit),
    trimOutcomes: async (before, limit) => retention.trimOutcomes(before, limit),
    saveNameRetention: async (rules, at) => retention.saveNameRetention(rules, at),
    nameRetention: async () => retention.nameRetention(),
    removeJobs: async (targets, at) => removal.removeJobs(targets, at),
    cleanJobs: async (filter, at) => removal.cleanJobs(filter, at),
    changes: async (after, limit, o) => dashboard.changes(after, limit, o),
    countByStateAndName: async (ids) => dashboard.countByStateAndName(ids),
    leases: async (since, limit) => dashboard.leases(since, limit),
    cursorAt: async (at) => dashboard.cursorAt(at),
    ...createSqliteProcesses(db),
    close: async () => {
      for (const stop of [...walWatches]) stop();
      await checkpointer?.close();
      if (db.open) db.close();
    },
  };
  // 'full': commits at NORMAL, each answered once an fsync off the event loop has covered it (wal-sync.ts).
  const sync = checkpointer && options.durability === 'full' ? openWalSync(db, checkpointer, () => s.totalChanges.get() as number) : undefined;
  const guarded = guardStore(store, { path: options.path, clock, busyTimeoutMs: options.busyTimeoutMs, isOpen: () => db.open, onFull: recoverFromFull, ...(sync ? { sync } : {}) });
  if (!checkpointer) return guarded; // in memory: no WAL to watch, no other process
  // Outside the guard: it runs no SQL for its caller, and it must stay synchronous.
  guarded.watchChanges = (onChange) => {
    if (!db.open) return () => {};
    // Each watch keeps a mark of its own: one watcher's look (or the claim loop's poll, which consumes
    // externalChange()'s) must not use up another's commit: a cancel would then reach no running handler.
    let mark = s.dataVersion.get() as number;
    const stop = watchWal({
      path: options.path,
      committed: () => {
        if (!db.open) return false;
        const v = s.dataVersion.get() as number;
        if (v === mark) return false;
        mark = v;
        return true;
      },
      ownWrites: () => (db.open ? (s.totalChanges.get() as number) : 0),
      onChange,
      onError: (err) => options.onWarning?.(`database ${options.path}: cannot watch the WAL (${err.message}); other processes' jobs are found by polling`),
    });
    const unwatch = () => {
      walWatches.delete(unwatch);
      stop();
    };
    walWatches.add(unwatch);
    return unwatch;
  };
  return guarded;
}
