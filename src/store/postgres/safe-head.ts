/**
 * How far a change reader may go in a table whose ids come from an identity
 * column: the "safe head".
 *
 * PostgreSQL hands out an identity id when a row is inserted, not when its
 * transaction commits. A transaction that took id 7 may commit after another
 * one that took id 8; a reader that has moved its cursor past 8 would never
 * see 7. (SQLite has one writer at a time: its ids appear in order.) A reader
 * therefore stops before the first id missing from its snapshot, unless that
 * gap has been seen for longer than GRACE_MS: a gap that old is an insert that
 * was rolled back, an id an `ON CONFLICT DO NOTHING` insert consumed, or a row
 * deleted since (retention) — none of them ever appears.
 *
 * Why a grace period and not the snapshot's transaction ids: a transaction
 * takes its id (nextval) before it is given a transaction id, so no snapshot
 * lists every transaction that holds an id it has not committed yet. litejobs
 * writes in short transactions (milliseconds); an insert whose transaction
 * stays open for longer than GRACE_MS after a later id committed can still be
 * passed by the reader — the one case this does not cover.
 *
 * Gaps are timed by this process's monotonic clock from when it first saw
 * them, all of a window at once, so that a run of deleted rows costs one grace
 * period, not one per gap. Ids up to the returned head are final; the next
 * walk starts there (`floor`).
 *
 * `safeHeads().read` must be the first statement of its read transaction, and
 * reads run one at a time: each snapshot is then at least as new as the one
 * that set the floor, so every id below the floor is in it.
 */
import { performance } from 'node:perf_hooks';
import type { ChangeCursor } from '../reads.js';
import type { Queryable } from './driver.js';
import { statement } from './sql.js';

export const GRACE_MS = 2_000;
/** Ids looked at per walk: the head moves at most this far per read. */
const WINDOW = 50_000;

interface SafeHead {
  /** The highest id such that every lower id is in `client`'s snapshot or never will be. */
  read(client: Queryable): Promise<number>;
}

export interface SafeHeads {
  /** The safe heads of jobs and job_history in `client`'s snapshot: its first statement. */
  read(client: Queryable): Promise<ChangeCursor>;
}

export function safeHeads(schema: string, now?: () => number): SafeHeads {
  const jobs = safeHead(schema, 'jobs', now);
  const history = safeHead(schema, 'job_history', now);
  let queue: Promise<unknown> = Promise.resolve();
  return {
    read(client) {
      const out = queue.then(async () => ({ jobId: await jobs.read(client), historyId: await history.read(client) }));
      queue = out.catch(() => undefined);
      return out;
    },
  };
}

function safeHead(schema: string, table: 'jobs' | 'job_history', now: () => number = () => performance.now()): SafeHead {
  // The floor itself stands in as a row, so that a gap right above it counts (its row may be gone).
  const gapsSql = statement('safe-head-gaps', schema, { table, window: String(WINDOW) });
  let floor = 0;
  /** Gaps by their first id, with when they were first seen. */
  let seen = new Map<number, number>();

  return {
    async read(client) {
      const start = floor;
      const { rows } = await client.query<{ from: number; to: number | null; last: number }>(gapsSql, [start]);
      const t = now();
      const next = new Map<number, number>();
      let head = rows[0]?.last ?? start;
      let stopped = false;
      for (const gap of rows) {
        if (gap.to === null) continue; // the row closing the window: no gap after it
        const since = seen.get(gap.from) ?? t;
        next.set(gap.from, since);
        if (!stopped && t - since < GRACE_MS) {
          head = gap.from - 1;
          stopped = true;
        }
      }
      // A concurrent read may have moved the floor meanwhile: it only grows.
      if (head > floor) floor = head;
      seen = new Map([...next].filter(([from]) => from > floor));
      return head;
    },
  };
}
