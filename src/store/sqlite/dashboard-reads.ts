/**
 * The dashboard's reads: what changed after a cursor (new jobs, history rows),
 * exact counts in slices of ids, leases, and a cursor for a point in time.
 *
 * `changes()` runs every statement of one read in one transaction, so that the
 * counts it returns agree with its cursor: a reader that applies every later
 * change on top of them stays exact. It also reads the paused names, which
 * change without a history row.
 */
import type Database from 'better-sqlite3';
import type { ChangeBatch, ChangeCursor, ChangeOptions, IdRange, LeaseView, RecentChange, StateNameCount, TransitionGroup } from '../store.js';
import { sql } from './sql.js';
import { changeWindow, newestRecent, NO_RANGE, RECENT, type Ranges } from '../change-window.js';
import { fillFeed } from '../change-feed.js';


export interface DashboardReads {
  changes(after: ChangeCursor | null, limit: number, options?: ChangeOptions): ChangeBatch;
  countByStateAndName(ids?: IdRange): StateNameCount[];
  leases(since: number, limit: number): { running: LeaseView[]; claimers: Array<{ owner: string; at: number }> };
  cursorAt(at: number): ChangeCursor;
}

export function createDashboardReads(db: Database.Database): DashboardReads {
  const s = {
    heads: db.prepare<[], ChangeCursor>(sql('changes-heads')),
    enqueued: db.prepare(sql('changes-enqueued')),
    transitions: db.prepare(sql('changes-transitions')),
    recent: db.prepare(sql('changes-recent')),
    recentJobs: db.prepare(sql('changes-recent-jobs')),
    feedJobs: db.prepare(sql('feed-jobs')),
    feedHistory: db.prepare(sql('feed-history')),
    latency: db.prepare(sql('changes-latency')),
    claimers: db.prepare(sql('changes-claimers')),
    countSlice: db.prepare(sql('count-by-state-name')),
    deleted: db.prepare(sql('deleted-count')).pluck(),
    leases: db.prepare(sql('leases')),
    historyAt: db.prepare(sql('history-at-id')),
    jobsAt: db.prepare(sql('jobs-created-at-id')),
    paused: db.prepare(sql('paused')).pluck(),
  };

  const recent = (r: Ranges, n: number): RecentChange[] =>
    newestRecent(s.recent.all({ ...r.history, limit: n }) as RecentChange[], s.recentJobs.all({ ...r.jobs, limit: n }) as RecentChange[], n);

  const changesTx = db.transaction((after: ChangeCursor | null, limit: number, o: ChangeOptions): ChangeBatch => {
    const head = s.heads.get()!;
    const { ranges: r, batch } = changeWindow(head, after, limit, o);
    if (o.feed) {
      fillFeed(batch, s.feedJobs.all(r.jobs) as RecentChange[], s.feedHistory.all(r.history) as RecentChange[], r, head);
      return batch;
    }
    if (r.jobs.upTo > r.jobs.after) batch.enqueued = s.enqueued.all(r.jobs) as ChangeBatch['enqueued'];
    if (r.history.upTo > r.history.after) {
      const mark = o.markIds ?? NO_RANGE;
      batch.transitions = (s.transitions.all({ ...r.history, markAfter: mark.after, markUpTo: mark.upTo }) as Array<Omit<TransitionGroup, 'marked'> & { marked: number }>).map((g) => ({
        ...g,
        marked: g.marked === 1,
      }));
      batch.latency = (s.latency.all({ ...r.history, limit: o.latencySamples ?? 500 }) as ChangeBatch['latency']).reverse();
      batch.claimers = s.claimers.all(r.history) as ChangeBatch['claimers'];
    }
    // Any history row: a progress update is a recent change, though no transition.
    if (batch.enqueued.length > 0 || r.history.upTo > r.history.after) batch.recent = recent(r, o.recent ?? RECENT);
    // Counts hold at the snapshot's end only: a read that stopped short leaves them for the next.
    if (!batch.more && !o.upTo) {
      if (o.countIds) batch.counts = s.countSlice.all(o.countIds) as StateNameCount[];
      batch.deleted = s.deleted.get() as number;
      // A pause writes no history row: the feed notices it by comparing this set.
      batch.paused = s.paused.all() as string[];
    }
    return batch;
  });

  /** The first id whose time is at or after `at`, by bisection over ids (ids follow time near enough). */
  const firstAt = (probe: Database.Statement, maxId: number, at: number): number => {
    let lo = 1;
    let hi = maxId + 1;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const row = probe.get({ id: mid }) as { id: number; at: number } | undefined;
      if (!row || row.at >= at) hi = mid;
      else lo = row.id + 1;
    }
    return lo;
  };

  const cursorAtTx = db.transaction((at: number): ChangeCursor => {
    const head = s.heads.get()!;
    return { jobId: firstAt(s.jobsAt, head.jobId, at) - 1, historyId: firstAt(s.historyAt, head.historyId, at) - 1 };
  });

  const leasesTx = db.transaction((since: number, limit: number) => {
    const head = s.heads.get()!;
    const after = Math.max(head.historyId - limit, firstAt(s.historyAt, head.historyId, since) - 1);
    return {
      running: s.leases.all() as LeaseView[],
      claimers: s.claimers.all({ after, upTo: head.historyId }) as Array<{ owner: string; at: number }>,
    };
  });

  return {
    changes: (after, limit, options = {}) => changesTx.deferred(after, limit, options),
    countByStateAndName: (ids) => s.countSlice.all(ids ?? { after: 0, upTo: Number.MAX_SAFE_INTEGER }) as StateNameCount[],
    leases: (since, limit) => leasesTx.deferred(since, limit),
    cursorAt: (at) => cursorAtTx.deferred(at),
  };
}
