/**
 * The dashboard's reads on PostgreSQL, with the SQLite store's semantics
 * (src/store/sqlite/dashboard-reads.ts): what changed after a cursor, exact
 * counts in slices of ids, leases, and a cursor for a point in time.
 *
 * Every read runs in one read-only REPEATABLE READ transaction, so that its
 * counts, paused names and cursor agree. Cursors stop at the safe heads
 * (safe-head.ts): ids are handed out at insert, not at commit, so the
 * snapshot may hold rows above the cursor. A count slice is therefore taken
 * back to the cursor: the snapshot's history rows above it are undone.
 */
import type { ChangeBatch, ChangeCursor, ChangeOptions, IdRange, LeaseView, RecentChange, StateNameCount, TransitionGroup } from '../store.js';
import type { Database } from './open.js';
import type { Queryable } from './driver.js';
import { safeHeads } from './safe-head.js';
import { statement } from './sql.js';
import { bindNamed } from './where.js';
import { changeWindow, newestRecent, NO_RANGE, RECENT, type Ranges } from '../change-window.js';
import { fillFeed } from '../change-feed.js';


/** Each statement is in sql/, named as its SQLite counterpart. */
function dashboardStatements(schema: string) {
  const q = (name: string) => statement(name, schema);
  return {
    enqueued: q('changes-enqueued'),
    transitions: q('changes-transitions'),
    recent: q('changes-recent'),
    recentJobs: q('changes-recent-jobs'),
    feedJobs: q('feed-jobs'),
    feedHistory: q('feed-history'),
    latency: q('changes-latency'),
    claimers: q('changes-claimers'),
    countSlice: q('count-by-state-name'),
    countSliceAt: q('count-by-state-name-at'),
    deleted: q('deleted-count'),
    paused: q('paused'),
    leases: q('leases'),
    historyAt: q('history-at-id'),
    jobsAt: q('jobs-created-at-id'),
  };
}

export interface DashboardReads {
  changes(after: ChangeCursor | null, limit: number, options?: ChangeOptions): Promise<ChangeBatch>;
  countByStateAndName(ids?: IdRange): Promise<StateNameCount[]>;
  leases(since: number, limit: number): Promise<{ running: LeaseView[]; claimers: Array<{ owner: string; at: number }> }>;
  cursorAt(at: number): Promise<ChangeCursor>;
}

export function createDashboardReads(db: Database, schema: string): DashboardReads {
  const s = dashboardStatements(schema);
  const heads = safeHeads(schema);
  const all = async <R>(client: Queryable, text: string, params: Record<string, unknown>): Promise<R[]> =>
    (await client.query<R>(...bindNamed(text, params))).rows;

  const recent = async (client: Queryable, r: Ranges, n: number): Promise<RecentChange[]> =>
    newestRecent(await all<RecentChange>(client, s.recent, { ...r.history, limit: n }), await all<RecentChange>(client, s.recentJobs, { ...r.jobs, limit: n }), n);

  const changes = async (client: Queryable, after: ChangeCursor | null, limit: number, o: ChangeOptions): Promise<ChangeBatch> => {
    const head = await heads.read(client);
    const { ranges: r, batch } = changeWindow(head, after, limit, o);
    if (head.held) batch.held = true;
    if (o.feed) {
      fillFeed(batch, await all<RecentChange>(client, s.feedJobs, { ...r.jobs }), await all<RecentChange>(client, s.feedHistory, { ...r.history }), r, head);
      return batch;
    }
    if (r.jobs.upTo > r.jobs.after) batch.enqueued = await all(client, s.enqueued, { ...r.jobs });
    if (r.history.upTo > r.history.after) {
      const mark = o.markIds ?? NO_RANGE;
      batch.transitions = await all<TransitionGroup>(client, s.transitions, { ...r.history, markAfter: mark.after, markUpTo: mark.upTo });
      batch.latency = (await all<ChangeBatch['latency'][number]>(client, s.latency, { ...r.history, limit: o.latencySamples ?? 500 })).reverse();
      batch.claimers = await all(client, s.claimers, { ...r.history });
    }
    // Any history row: a progress update is a recent change, though no transition.
    if (batch.enqueued.length > 0 || r.history.upTo > r.history.after) batch.recent = await recent(client, r, o.recent ?? RECENT);
    // Counts hold at the cursor only: a read that stopped short leaves them for the next.
    if (!batch.more && !o.upTo) {
      if (o.countIds) batch.counts = await all<StateNameCount>(client, s.countSliceAt, { ...o.countIds, historyId: batch.cursor.historyId });
      const [deleted] = await all<{ value: number }>(client, s.deleted, {});
      batch.deleted = deleted?.value ?? 0;
      // A pause writes no history row: the feed notices it by comparing this set.
      batch.paused = (await all<{ name: string }>(client, s.paused, {})).map((p) => p.name);
    }
    return batch;
  };

  /** The first id whose time is at or after `at`, by bisection over ids (ids follow time near enough). */
  const firstAt = async (client: Queryable, probe: string, maxId: number, at: number): Promise<number> => {
    let lo = 1;
    let hi = maxId + 1;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const [row] = await all<{ id: number; at: number }>(client, probe, { id: mid });
      // Rows above the safe head may be in the snapshot: they count as not there.
      if (!row || row.id > maxId || row.at >= at) hi = mid;
      else lo = row.id + 1;
    }
    return lo;
  };

  return {
    changes: (after, limit, options = {}) => db.tx((client) => changes(client, after, limit, options), 'snapshot'),
    countByStateAndName: async (ids) => db.rows<StateNameCount>(...bindNamed(s.countSlice, { ...(ids ?? { after: 0, upTo: Number.MAX_SAFE_INTEGER }) })),
    leases: (since, limit) =>
      db.tx(async (client) => {
        const head = await heads.read(client);
        const after = Math.max(head.historyId - limit, (await firstAt(client, s.historyAt, head.historyId, since)) - 1);
        return {
          running: await all<LeaseView>(client, s.leases, {}),
          claimers: await all<{ owner: string; at: number }>(client, s.claimers, { after, upTo: head.historyId }),
        };
      }, 'snapshot'),
    cursorAt: (at) =>
      db.tx(async (client) => {
        const head = await heads.read(client);
        return { jobId: (await firstAt(client, s.jobsAt, head.jobId, at)) - 1, historyId: (await firstAt(client, s.historyAt, head.historyId, at)) - 1 };
      }, 'snapshot'),
  };
}
