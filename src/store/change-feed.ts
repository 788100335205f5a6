/**
 * The change feed's order, for both stores: `queue.watch()` reads every
 * change after a cursor in it, in pages, and resumes from any change's
 * cursor with none lost and none twice.
 *
 * A change is a job's creation (the jobs table, by job id) or one of its
 * moves (the history table, by row id). Each table's ids follow commit order
 * up to the store's safe head (SQLite has one writer at a time; PostgreSQL
 * stops before ids still in flight: safe-head.ts), and a job's moves take
 * ids in the order they commit (a move takes its history id while it holds
 * the job's row). So the feed is a merge of two sequences, each in id order,
 * and a cursor is a pair: every creation up to `jobId` and every move up to
 * `historyId` has been read. Any merge keeps that exact; this one puts a
 * job's creation before its moves: a move of job j waits until the
 * creations up to j are out. Time (`at`) orders nothing: hosts' clocks
 * differ, and a write reads the clock before it waits for the lock.
 */
import type { ChangeBatch, ChangeCursor, RecentChange } from './store.js';
import type { Ranges } from './change-window.js';

/**
 * Merges a read's creations and moves (each in id order, read in `ranges`)
 * into the feed's order, and where the next read starts. A move whose job
 * was created past the read's jobs range stops the moves there (the next
 * read brings its creation first).
 */
export function feedOrder(creations: readonly RecentChange[], moves: readonly RecentChange[], ranges: Ranges): { changes: RecentChange[]; cursor: ChangeCursor; stopped: boolean } {
  const out: RecentChange[] = [];
  let c = 0;
  let historyId = ranges.history.upTo;
  let stopped = false;
  for (const move of moves) {
    if (Number(move.id) > ranges.jobs.upTo) {
      historyId = Number(move.seq) - 1;
      stopped = true;
      break;
    }
    while (c < creations.length && Number(creations[c]!.seq) <= Number(move.id)) out.push(creations[c++]!);
    out.push(move);
  }
  while (c < creations.length) out.push(creations[c++]!);
  return { changes: out, cursor: { jobId: ranges.jobs.upTo, historyId }, stopped };
}

/**
 * Fills a feed read's batch (ChangeOptions `feed`): its changes in order, its
 * cursor, whether more follows. Moves that stopped at a job created past the
 * read's range are more to read at once when the range ended at its page's
 * size, and held (read again soon) when it ended at the newest final job id
 * (`head`: PostgreSQL's safe head stops below a creation still in flight).
 */
export function fillFeed(batch: ChangeBatch, creations: readonly RecentChange[], moves: readonly RecentChange[], ranges: Ranges, head: ChangeCursor): void {
  const { changes, cursor, stopped } = feedOrder(creations, moves, ranges);
  batch.recent = changes;
  batch.cursor = cursor;
  if (stopped && ranges.jobs.upTo < head.jobId) batch.more = true;
  else if (stopped) batch.held = true;
}
