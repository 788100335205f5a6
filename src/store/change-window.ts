/**
 * What both stores' `changes()` share: which id ranges one read covers, and
 * how its detailed changes are ordered. Only the statements differ by store.
 */
import type { ChangeBatch, ChangeCursor, ChangeOptions, IdRange, RecentChange } from './store.js';

/** The detailed changes a batch carries at most. */
export const RECENT = 50;
/** A range holding no id: marks nothing. */
export const NO_RANGE: IdRange = { after: 0, upTo: 0 };

export interface Ranges {
  jobs: IdRange;
  history: IdRange;
}

/**
 * The ranges a read after `after` covers, up to the newest ids (`head`, or
 * `upTo` when a replay stops earlier), at most `limit` ids of each table; and
 * the batch to fill, with its cursor and whether more is left.
 */
export function changeWindow(head: ChangeCursor, after: ChangeCursor | null, limit: number, o: ChangeOptions): { ranges: Ranges; batch: ChangeBatch } {
  const end = o.upTo ? { jobId: Math.min(head.jobId, o.upTo.jobId), historyId: Math.min(head.historyId, o.upTo.historyId) } : head;
  const from = after ?? end;
  // An id range bounds the rows it holds (ids are never reused; deletions only thin it out).
  const cursor = { jobId: Math.min(end.jobId, from.jobId + limit), historyId: Math.min(end.historyId, from.historyId + limit) };
  const more = cursor.jobId < end.jobId || cursor.historyId < end.historyId;
  const ranges: Ranges = {
    jobs: { after: from.jobId, upTo: Math.max(from.jobId, cursor.jobId) },
    history: { after: from.historyId, upTo: Math.max(from.historyId, cursor.historyId) },
  };
  const batch: ChangeBatch = { cursor: { jobId: ranges.jobs.upTo, historyId: ranges.history.upTo }, more, enqueued: [], transitions: [], recent: [], latency: [], claimers: [] };
  return { ranges, batch };
}

/** The newest RECENT of a read's transitions and enqueues (each list newest first), oldest first. */
export function newestRecent(transitions: RecentChange[], enqueues: RecentChange[], n = RECENT): RecentChange[] {
  const rows = [...transitions, ...enqueues];
  // Jobs and history rows have ids of their own: time orders them, stable within each.
  rows.reverse().sort((a, b) => a.at - b.at);
  return rows.slice(-n);
}
