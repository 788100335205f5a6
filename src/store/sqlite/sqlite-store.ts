/**
 * The embedded store: one SQLite file in WAL mode, one connection per process.
 * Every write that starts from a read runs in `BEGIN IMMEDIATE`, so several
 * processes can share the file without a deferred transaction's SQLITE_BUSY.
 */
import type Database from 'better-sqlite3';
import type {
  ClaimedJob,
  ClaimRequest,
  DueJob,
  InsertResult,
  NewJob,
  QueueStats,
  Store,
  TransitionRequest,
} from '../store.js';
import { DatabaseError } from '../../errors.js';
import { startCheckpointer } from './checkpointer.js';
import { openDatabase, toDatabaseError, type OpenOptions } from './open.js';
import { sql } from './sql.js';
import { listJobs } from './list-jobs.js';
import { namesStatement } from './names-statement.js';
import { toDueJob, toHistoryEntry, toJobRecord, parseJson, type DueRow, type HistoryRow, type JobRow } from './rows.js';

export interface SqliteStoreOptions extends OpenOptions {
  /** Record each transition in `job_history`. */
  history: boolean;
  /** Finished jobs are deleted after a while: build the index that finds them by age now, not on the first purge. */
  retentionIndex?: boolean;
}

interface ClaimRow {
  id: number;
  name: string;
  payload: string;
  attempts: number;
  last_error: string | null;
  ctx: string | null;
  retry: string | null;
  timeout_ms: number | null;
}

export function createSqliteStore(options: SqliteStoreOptions): Store {
  const db = openDatabase(options);
  const recordHistory = options.history;
  let tokenSeq = 0;
  const tokenPrefix = `${process.pid.toString(36)}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 8)}`;

  const s = {
    insert: db.prepare<Record<string, unknown>, { id: number }>(sql('insert')),
    insertKeyless: db.prepare(sql('insert-keyless')),
    insertSingle: db.prepare(sql('insert-single')),
    indexNew: db.prepare(sql('index-new')),
    indexMark: db.prepare(sql('index-mark')),
    findByKey: db.prepare<[string], { id: number }>(sql('find-by-key')),
    claimReady: namesStatement(db, sql('claim-ready')),
    claimLease: db.prepare(sql('claim-lease')),
    transition: db.prepare(sql('transition')),
    transitionHeld: db.prepare(sql('transition-held')),
    history: db.prepare(sql('insert-history')),
    claimHistory: db.prepare(sql('insert-claim-history')),
    heartbeat: db.prepare(sql('heartbeat')),
    progress: db.prepare(sql('progress')),
    expired: namesStatement(db, sql('expired-leases')),
    due: db.prepare(sql('due-jobs')),
    nextDue: db.prepare(sql('next-due-at')),
    nextPending: db.prepare(sql('next-pending-at')),
    get: db.prepare(sql('get')),
    historyOf: db.prepare(sql('history')),
    stats: db.prepare(sql('stats')),
    dataVersion: db.prepare('PRAGMA data_version').pluck(),
    purgeJob: db.prepare(sql('purge-job')),
    purgeHistory: db.prepare(sql('purge-history')),
    deleteJob: db.prepare(sql('delete-job')),
  };

  /**
   * A job without an idempotency key: `insert-keyless` inside a batch, or
   * `insert-single` for one job that SQLite commits by itself (an awaited
   * enqueue), which leaves the claim index to the next claim.
   */
  const insertKeyless = (statement: Database.Statement, job: NewJob, at: number): InsertResult => {
    const { lastInsertRowid } = statement.run(job.name, job.state, job.payload, job.priority, job.runAt, job.retry, job.timeout, at, at);
    return { id: Number(lastInsertRowid), created: true };
  };

  /** Puts jobs committed on their own into the claim index and moves the mark past every job (index-new.sql). */
  const indexNewJobs = (): void => {
    s.indexNew.run();
    s.indexMark.run();
  };

  const insertTx = db.transaction((jobs: readonly NewJob[], at: number): InsertResult[] => {
    const out: InsertResult[] = new Array(jobs.length);
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i]!;
      if (job.key === null) {
        out[i] = insertKeyless(s.insertKeyless, job, at);
        continue;
      }
      const row = s.insert.get({ ...job, at });
      // An existing key hands back the first job.
      out[i] = row ? { id: row.id, created: true } : { id: s.findByKey.get(job.key)!.id, created: false };
    }
    // This batch went into the index as it was written: move the mark past it,
    // so the next claim does not walk over these rows looking for new ones.
    indexNewJobs();
    return out;
  });

  const claimTx = db.transaction((req: ClaimRequest, token: string): ClaimedJob[] => {
    indexNewJobs();
    const rows = s.claimReady.all(req.names, { now: req.now, limit: req.limit }) as ClaimRow[];
    if (rows.length === 0) return [];
    const lockedUntil = req.now + req.leaseMs;
    const out: ClaimedJob[] = new Array(rows.length);
    const ids: number[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      ids[i] = r.id;
      out[i] = {
        id: r.id,
        name: r.name,
        payload: r.payload,
        attempts: r.attempts + 1,
        lastError: parseJson(r.last_error),
        ctx: parseJson(r.ctx),
        retry: parseJson(r.retry),
        timeout: r.timeout_ms,
        token,
        lockedUntil,
      };
    }
    const idList = JSON.stringify(ids);
    const leased = s.claimLease.run({ ids: idList, owner: req.owner, token, lockedUntil, now: req.now }).changes;
    // The write lock is held since the SELECT: nothing can have moved these rows.
    if (leased !== rows.length) throw new DatabaseError('LJ_ERR_DATABASE', `claim leased ${leased} of the ${rows.length} jobs it read`);
    if (recordHistory) s.claimHistory.run({ ids: idList, at: req.now, owner: req.owner, token });
    return out;
  });

  const transitionTx = db.transaction((reqs: readonly TransitionRequest[]): boolean[] =>
    reqs.map((t) => {
      if (t.purge) {
        const gone = s.purgeJob.run({ id: t.id, from: t.from, token: t.token }).changes === 1;
        if (gone && recordHistory) s.purgeHistory.run(t.id);
        return gone;
      }
      const lastError = t.lastError ? JSON.stringify(t.lastError) : null;
      const ctx = t.ctx ? JSON.stringify(t.ctx) : null;
      const statement = t.to === 'processing' ? s.transitionHeld : s.transition;
      const changed =
        statement.run(t.to, t.attempts, lastError, ctx, t.runAt ?? null, t.result ?? null, t.at, t.id, t.from, t.token).changes === 1;
      if (changed && recordHistory) {
        const error = t.error ? JSON.stringify(t.error) : null;
        s.history.run(t.id, t.from, t.to, t.event, t.at, t.workerId ?? null, t.token, error);
      }
      return changed;
    }),
  );

  // The retention index exists only once some queue asked for time-based retention.
  let finishedBefore: Database.Statement | undefined;
  const ensureRetentionIndex = (): Database.Statement => {
    if (!finishedBefore) {
      db.transaction(() => db.exec(sql('retention-index'))).immediate();
      finishedBefore = db.prepare(sql('finished-before')).pluck();
    }
    return finishedBefore;
  };
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
          onError: (message) => options.onWarning?.(message),
        });

  const purgeTx = db.transaction((finished: Database.Statement, state: string, before: number, limit: number): number => {
    const ids = finished.all({ state, before, limit }) as number[];
    for (const id of ids) {
      s.deleteJob.run(id);
      s.purgeHistory.run(id);
    }
    return ids.length;
  });

  let lastDataVersion = s.dataVersion.get() as number;

  return typedErrors(options.path, {
    insert: async (jobs, at) => (jobs.length === 1 && jobs[0]!.key === null ? [insertKeyless(s.insertSingle, jobs[0]!, at)] : insertTx.immediate(jobs, at)),
    claim: async (req) => claimTx.immediate(req, `${tokenPrefix}.${(++tokenSeq).toString(36)}`),
    transition: async (reqs) => transitionTx.immediate(reqs),
    heartbeat: async (id, token, lockedUntil) => s.heartbeat.run({ id, token, lockedUntil }).changes === 1,
    progress: async (id, token, progress) => s.progress.run({ id, token, progress }).changes === 1,
    expiredLeases: async (names, now, limit) =>
      (s.expired.all(names, { now, limit }) as DueRow[]).map(toDueJob),
    dueJobs: async (names, states, now, limit) => {
      const out: DueJob[] = [];
      for (const state of states) {
        for (const name of names) {
          if (out.length >= limit) return out;
          for (const row of s.due.all({ state, name, now, limit: limit - out.length }) as DueRow[]) out.push(toDueJob(row));
        }
      }
      return out;
    },
    nextDueAt: async (names, states) => {
      let min: number | null = null;
      for (const state of states) {
        for (const name of names) {
          const row = state === 'pending' ? s.nextPending.get({ name }) : s.nextDue.get({ state, name });
          const at = (row as { at: number | null }).at;
          if (at !== null && (min === null || at < min)) min = at;
        }
      }
      return min;
    },
    get: async (id) => {
      const row = s.get.get(id) as JobRow | undefined;
      return row ? toJobRecord(row) : undefined;
    },
    list: async (filter) => listJobs(db, filter),
    history: async (id) => (s.historyOf.all({ id }) as HistoryRow[]).map(toHistoryEntry),
    stats: async () => {
      const stats: QueueStats = { total: 0, byState: {}, byName: {} };
      for (const r of s.stats.all() as Array<{ state: string; name: string; n: number }>) {
        stats.total += r.n;
        stats.byState[r.state] = (stats.byState[r.state] ?? 0) + r.n;
        (stats.byName[r.name] ??= {})[r.state] = r.n;
      }
      return stats;
    },
    externalChange: () => {
      // data_version changes only when another connection commits.
      const v = s.dataVersion.get() as number;
      if (v === lastDataVersion) return false;
      lastDataVersion = v;
      return true;
    },
    backup: async (destination) => {
      await db.backup(destination);
    },
    // A store opened without `retentionIndex` builds the index on its first purge, before the purge's transaction.
    purgeFinished: async (state, before, limit) => purgeTx.immediate(ensureRetentionIndex(), state, before, limit),
    close: async () => {
      await checkpointer?.close();
      if (db.open) db.close();
    },
  });
}

/** Every SQLite failure leaves the store as a DatabaseError with a stable code. */
function typedErrors(path: string, store: Store): Store {
  const out: Record<string, unknown> = {};
  for (const [key, fn] of Object.entries(store) as Array<[string, (...args: unknown[]) => unknown]>) {
    out[key] = (...args: unknown[]) => {
      try {
        const r = fn(...args);
        return r instanceof Promise ? r.catch((err: unknown) => Promise.reject(toDatabaseError(err, path))) : r;
      } catch (err) {
        throw toDatabaseError(err, path);
      }
    };
  }
  return out as unknown as Store;
}
