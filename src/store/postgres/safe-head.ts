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
 * Each litejobs statement that takes an id gives its transaction its
 * transaction id first (`pg_current_xact_id()` in insert.sql; a history row
 * follows its job's update). So the transaction holding a missing id had its
 * transaction id when the gap was first seen, and is among this database's
 * transactions that held one then (pg_stat_activity, and prepared ones),
 * whatever the snapshot lists (it leaves out ids past its xmax). A gap is
 * final once a later read's snapshot shows every one of those ended; never
 * in the read that first saw it (one that ended between that read's
 * snapshot and its look at the others would be missed; the next snapshot
 * holds its row). A transaction kept open for long (an application's own,
 * which an `enqueue({ client })` joins) holds the reader back until it
 * ends, and no longer: nothing is timed. Other databases' transactions
 * never do.
 *
 * Ids up to the returned head are final; the next walk starts there
 * (`floor`). `safeHeads().read` must be the first statement of its read
 * transaction, and reads run one at a time: each snapshot is then at least
 * as new as the one that set the floor, so every id below the floor is in it.
 */
import type { ChangeCursor } from '../store.js';
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

/**
 * A snapshot as `pg_current_snapshot()` writes it (`xmin:xmax:xip,…`, 64-bit
 * ids), taken down to the 32-bit ids pg_stat_activity gives, which are
 * compared modulo 2^32 (ids that wrapped round still order right within 2^31).
 */
interface Snapshot {
  xmin: number;
  xmax: number;
  xip: ReadonlySet<number>;
}

const xid32 = (text: string) => Number(BigInt(text) & 0xffffffffn);

function parseSnapshot(text: string): Snapshot {
  const [xmin, xmax, xip] = text.split(':');
  return { xmin: xid32(xmin!), xmax: xid32(xmax!), xip: new Set(xip ? xip.split(',').map(xid32) : []) };
}

/** `a` comes before `b`, modulo 2^32. */
const precedes = (a: number, b: number) => ((a - b) | 0) < 0;
/** Still running as of the snapshot: not before its xmin, and past its xmax or listed. */
const running = (snapshot: Snapshot, xid: number) => !precedes(xid, snapshot.xmin) && (!precedes(xid, snapshot.xmax) || snapshot.xip.has(xid));

function safeHead(schema: string, table: 'jobs' | 'job_history'): SafeHead {
  // The floor itself stands in as a row, so that a gap right above it counts (its row may be gone).
  // A job deleted as it finished keeps its id in job_outcomes: not a gap, and the newest id may be one.
  const more = table === 'jobs' ? `UNION ALL (SELECT id FROM "${schema}".job_outcomes WHERE id > $1 ORDER BY id LIMIT ${WINDOW})` : '';
  const gapsSql = statement('safe-head-gaps', schema, { table, window: String(WINDOW), more });
  let floor = 0;
  /** Gaps by their first id, with the transactions that held an id when each was first seen: it is final once they have all ended. */
  let seen = new Map<number, readonly number[]>();

  return {
    async read(client) {
      const start = floor;
      const { rows } = await client.query<{ from: number | string; to: number | string | null; last: number | string; snapshot: string; active: string[] }>(gapsSql, [start]);
      const snapshot = parseSnapshot(rows[0]!.snapshot);
      const active = (rows[0]?.active ?? []).map(Number);
      const next = new Map<number, readonly number[]>();
      const last = Number(rows[0]?.last ?? start);
      let head = last;
      let stopped = false;
      for (const gap of rows) {
        if (gap.to === null) continue; // the row closing the window: no gap after it
        const from = Number(gap.from);
        const before = seen.get(from);
        // Seen for the first time: wait for every transaction that held an id then, at least until the next read.
        const waitFor = before === undefined ? active : before.filter((xid) => running(snapshot, xid));
        next.set(from, waitFor);
        if (!stopped && (before === undefined || waitFor.length > 0)) {
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
