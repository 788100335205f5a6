/**
 * How far a change reader may go in a table whose ids come from an identity
 * column: the "safe head".
 *
 * PostgreSQL hands out an identity id when a row is inserted, not when its
 * transaction commits. A transaction that took id 7 may commit after another
 * one that took id 8; a reader that has moved its cursor past 8 would never
 * see 7. (SQLite has one writer at a time: its ids appear in order.) A reader
 * therefore stops before the first id missing from its snapshot, until that
 * gap is final: an insert rolled back, an id an `ON CONFLICT DO NOTHING`
 * insert consumed, or a row deleted since (retention).
 *
 * A gap is final once every transaction that the snapshot which first showed
 * it listed as running has ended: each litejobs statement that takes an id
 * gives its transaction an id first (`pg_current_xact_id()` in insert.sql;
 * a history row follows its job's update), so a transaction holding a
 * missing id had its transaction id before that snapshot and is among those
 * it lists. A transaction kept open for long (an application's own, which an
 * `enqueue({ client })` joins) holds the reader back until it ends, and no
 * longer: nothing is timed.
 *
 * Ids up to the returned head are final; the next walk starts there
 * (`floor`). `safeHeads().read` must be the first statement of its read
 * transaction, and reads run one at a time: each snapshot is then at least
 * as new as the one that set the floor, so every id below the floor is in it.
 */
import type { ChangeCursor } from '../reads.js';
import type { Queryable } from './driver.js';
import { statement } from './sql.js';

/** Ids looked at per walk: the head moves at most this far per read. */
const WINDOW = 50_000;

interface SafeHead {
  /** The highest id such that every lower id is in `client`'s snapshot or never will be; whether rows above it are in the snapshot. */
  read(client: Queryable): Promise<{ head: number; held: boolean }>;
}

/** The safe heads, and whether the snapshot holds rows past them (a gap still in flight holds them back). */
export type SafeCursor = ChangeCursor & { held: boolean };

export interface SafeHeads {
  /** The safe heads of jobs and job_history in `client`'s snapshot: its first statement. */
  read(client: Queryable): Promise<SafeCursor>;
}

export function safeHeads(schema: string): SafeHeads {
  const jobs = safeHead(schema, 'jobs');
  const history = safeHead(schema, 'job_history');
  let queue: Promise<unknown> = Promise.resolve();
  return {
    read(client) {
      const out = queue.then(async () => {
        const j = await jobs.read(client);
        const h = await history.read(client);
        return { jobId: j.head, historyId: h.head, held: j.held || h.held };
      });
      queue = out.catch(() => undefined);
      return out;
    },
  };
}

/** A snapshot as `pg_current_snapshot()` writes it: `xmin:xmax:xip,…`. */
interface Snapshot {
  xmin: bigint;
  xmax: bigint;
  xip: ReadonlySet<bigint>;
}

function parseSnapshot(text: string): Snapshot {
  const [xmin, xmax, xip] = text.split(':');
  return { xmin: BigInt(xmin!), xmax: BigInt(xmax!), xip: new Set(xip ? xip.split(',').map((x) => BigInt(x)) : []) };
}

const running = (snapshot: Snapshot, xid: bigint) => xid >= snapshot.xmin && (xid >= snapshot.xmax || snapshot.xip.has(xid));

function safeHead(schema: string, table: 'jobs' | 'job_history'): SafeHead {
  // The floor itself stands in as a row, so that a gap right above it counts (its row may be gone).
  const gapsSql = statement('safe-head-gaps', schema, { table, window: String(WINDOW) });
  let floor = 0;
  /** Gaps by their first id, with the transactions running when each was first seen: it is final once they have all ended. */
  let seen = new Map<number, readonly bigint[]>();

  return {
    async read(client) {
      const start = floor;
      const { rows } = await client.query<{ from: number | string; to: number | string | null; last: number | string; snapshot: string }>(gapsSql, [start]);
      const snapshot = parseSnapshot(rows[0]!.snapshot);
      const next = new Map<number, readonly bigint[]>();
      const last = Number(rows[0]?.last ?? start);
      let head = last;
      let stopped = false;
      for (const gap of rows) {
        if (gap.to === null) continue; // the row closing the window: no gap after it
        const from = Number(gap.from);
        const waitFor = (seen.get(from) ?? [...snapshot.xip]).filter((xid) => running(snapshot, xid));
        next.set(from, waitFor);
        if (!stopped && waitFor.length > 0) {
          head = from - 1;
          stopped = true;
        }
      }
      // A concurrent read may have moved the floor meanwhile: it only grows.
      if (head > floor) floor = head;
      seen = new Map([...next].filter(([from]) => from > floor));
      return { head, held: head < last };
    },
  };
}
