/**
 * The chaos verdict on the change feed: what the watcher processes logged
 * (feed-log.ts), across their kills and resumptions, against what the store
 * holds at the end. Every creation and move still in the store must have
 * been given once, none twice, and each job's in its order (its creation
 * first, then its moves by history id). Changes of jobs deleted since (the
 * operator's removes) cannot be checked against the store, only for
 * doubles and order.
 */
import type { FeedEntry } from './feed-log.js';
import type { HistoryRow, JobRow } from './verdict.js';

export interface FeedVerdict {
  /** Changes the watcher logged (all incarnations). */
  changes: number;
  /** In the store, never given. */
  lost: string[];
  /** Given more than once. */
  doubled: string[];
  /** Given after a later change of the same job. */
  outOfOrder: string[];
}

export function feedVerdict(feed: readonly FeedEntry[], jobs: readonly JobRow[], history: readonly HistoryRow[]): FeedVerdict {
  const seen = new Map<string, number>();
  for (const e of feed) seen.set(e.key, (seen.get(e.key) ?? 0) + 1);
  const doubled = [...seen].filter(([, n]) => n > 1).map(([key]) => key);
  const lost = [...jobs.map((j) => `j${j.id}`), ...history.filter((h) => h.job_id !== 0).map((h) => `h${h.id}`)].filter((key) => !seen.has(key));
  const outOfOrder: string[] = [];
  const last = new Map<number, number>();
  for (const e of feed) {
    const n = e.key.startsWith('j') ? 0 : Number(e.key.slice(1));
    if ((last.get(e.jobId) ?? -1) >= n && !doubled.includes(e.key)) outOfOrder.push(`${e.key} (job ${e.jobId})`);
    last.set(e.jobId, Math.max(n, last.get(e.jobId) ?? -1));
  }
  return { changes: feed.length, lost, doubled, outOfOrder };
}
