/**
 * The change feed, read as a live watcher would while the model check's
 * connections write (small pages, from the start), and judged at the end:
 * every creation and move the database still holds was read once, none was
 * read twice, each job's changes came in their order, and a reader resuming
 * from any cursor it was given reads exactly what followed, of what is
 * still there.
 */
import type { ChangeBatch, ChangeCursor, RecentChange, Store } from '../../src/store/store.js';

/** Small pages: a backlog always spans several reads. */
const PAGE = 4;

export interface FeedEntry {
  /** `j<id>` for a creation, `h<history id>` for a move. */
  key: string;
  job: number;
  /** The cursor a reader resumes from to read what follows this change. */
  after: ChangeCursor;
}

const keyOf = (c: RecentChange) => (c.from === null && c.event === 'job.enqueue' ? `j${c.seq}` : `h${c.seq}`);

/** One page from `cursor`: its changes, each with the cursor that resumes after it, and the batch. */
async function page(store: Store, cursor: ChangeCursor): Promise<{ entries: FeedEntry[]; batch: ChangeBatch }> {
  const batch = await store.changes!(cursor, PAGE, { feed: true, latencySamples: 0 });
  let { jobId, historyId } = cursor;
  const entries = batch.recent.map((c) => {
    if (keyOf(c).startsWith('j')) jobId = Math.max(jobId, Number(c.seq));
    else historyId = Math.max(historyId, Number(c.seq));
    return { key: keyOf(c), job: Number(c.id), after: { jobId, historyId } };
  });
  return { entries, batch };
}

/** Reads from `cursor` to the end, in pages; the changes and where the reader stands. */
export async function readFeed(store: Store, from: ChangeCursor): Promise<{ entries: FeedEntry[]; cursor: ChangeCursor }> {
  const entries: FeedEntry[] = [];
  let cursor = from;
  for (let more = true; more; ) {
    const read = await page(store, cursor);
    entries.push(...read.entries);
    cursor = read.batch.cursor;
    more = read.batch.more || read.batch.held === true;
  }
  return { entries, cursor };
}

export interface LiveFeed {
  /** One page, from where the watcher stands (a read already under way is not doubled). */
  step(store: Store): Promise<void>;
  /** What breaks the feed's promises, reading what is left and resuming from some of its cursors. */
  judge(store: Store, exists: { jobs: ReadonlySet<number>; history: ReadonlySet<number> }, pick: (n: number) => number): Promise<string[]>;
}

export function createLiveFeed(): LiveFeed {
  const seen: FeedEntry[] = [];
  let cursor: ChangeCursor = { jobId: 0, historyId: 0 };
  let reading = false;
  const stillThere = (e: FeedEntry, exists: { jobs: ReadonlySet<number>; history: ReadonlySet<number> }) =>
    e.key.startsWith('j') ? exists.jobs.has(Number(e.key.slice(1))) : exists.history.has(Number(e.key.slice(1)));
  return {
    async step(store) {
      if (reading) return;
      reading = true;
      try {
        const read = await page(store, cursor);
        seen.push(...read.entries);
        cursor = read.batch.cursor;
      } finally {
        reading = false;
      }
    },
    async judge(store, exists, pick) {
      const out: string[] = [];
      const rest = await readFeed(store, cursor);
      seen.push(...rest.entries);
      const keys = seen.map((e) => e.key);
      const twice = keys.filter((k, i) => keys.indexOf(k) !== i);
      if (twice.length > 0) out.push(`feed: read twice: ${twice.slice(0, 5).join(' ')}`);
      const read = new Set(keys);
      for (const id of exists.jobs) if (!read.has(`j${id}`)) out.push(`feed: the creation of job ${id} was never read`);
      for (const id of exists.history) if (!read.has(`h${id}`)) out.push(`feed: history row ${id} was never read`);
      // Each job's changes in their order: its creation first, then its moves by history id.
      const last = new Map<number, number>();
      for (const e of seen) {
        const n = e.key.startsWith('j') ? 0 : Number(e.key.slice(1));
        if ((last.get(e.job) ?? -1) >= n) out.push(`feed: job ${e.job}'s ${e.key} came after a later change of it`);
        last.set(e.job, n);
      }
      // Resuming from a cursor reads exactly what followed it, of what is still there.
      for (const i of [0, 1, 2].map((k) => pick(k) % Math.max(1, seen.length))) {
        if (seen.length === 0) break;
        const resumed = (await readFeed(store, seen[i]!.after)).entries.map((e) => e.key).sort();
        const want = seen.slice(i + 1).filter((e) => stillThere(e, exists)).map((e) => e.key).sort();
        if (JSON.stringify(resumed) !== JSON.stringify(want)) out.push(`feed: resumed after ${seen[i]!.key}: read ${resumed.length}, ${want.length} followed it`);
      }
      return out;
    },
  };
}
