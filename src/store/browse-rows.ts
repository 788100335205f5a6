/**
 * What every store's `browse()` shares: the page plan's shape, the scan
 * budget, the row a listing reads, its summary, and the keyset cursor (the
 * sort key of the last row, as opaque text). Each store only says how to walk
 * its indexes.
 */
import type { JobSummary } from './store.js';
import { storedJson } from '../lib/stored-json.js';

/** Characters of payload JSON a summary carries. */
export const PAYLOAD_PREVIEW = 200;

/** Rows a filtered page reads at most: a rare match never costs a full scan. */
export const SCAN_BUDGET = 20_000;

/** One run along an index: the rows it reads, in order, after a cursor. */
export interface Segment {
  /** FROM … WHERE: the state's rows on its index, past the cursor (named parameters @k0, @k1 …). */
  from: string;
  order: string;
}

/** How one state pages: its sort key and the runs to read in turn. */
export interface BrowsePlan {
  /** The sort key's columns: what a cursor holds. */
  keys: string[];
  /** Rows past the cursor as one condition (for rows read apart and merged in). */
  past: string;
  /** The runs to read in turn; from a cursor when one is given. */
  segments(after: boolean): Segment[];
}

/** A cursor's sort key: the ordering columns' values of one row. */
export type Key = Array<number | string>;

/** The columns a listing reads (`payload` cut to PAYLOAD_PREVIEW + 1 characters, `error` the last error's message). */
export interface SummaryRow {
  id: number;
  name: string;
  state: string;
  version: number;
  attempts: number;
  priority: number;
  run_at: number;
  created_at: number;
  updated_at: number;
  lease_owner: string | null;
  /** JSON text. */
  progress: string | null;
  locked_until: number | null;
  error: string | null;
  payload: string;
}

export function toSummary(r: SummaryRow): JobSummary {
  return {
    id: r.id,
    name: r.name,
    state: r.state,
    version: Number(r.version),
    attempts: r.attempts,
    priority: r.priority,
    // A LIFO job's stored run time is its place in line (core/options.ts lifoRunAt): shown as its creation.
    runAt: r.run_at < 0 ? r.created_at : r.run_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    leaseOwner: r.lease_owner,
    progress: r.progress === null ? null : storedJson(r.progress),
    error: r.error,
    payload: r.payload.length > PAYLOAD_PREVIEW ? `${r.payload.slice(0, PAYLOAD_PREVIEW - 1)}…` : r.payload,
  };
}

export const encodeCursor = (key: Key): string => Buffer.from(JSON.stringify(key)).toString('base64url');

/** The key a cursor holds, or undefined when it is not one of `length` plain values (altered, or another state's). */
/**
 * A cursor back into the key it was made from, or undefined for one that is
 * not (altered, or another listing's). Each value is checked against its
 * column, so that no store ever sees a cursor's value it could not compare:
 * `name` a string (no NUL), every other key a safe integer.
 */
export function decodeCursor(cursor: string, keys: readonly string[]): Key | undefined {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(key) || key.length !== keys.length) return undefined;
    const fits = key.every((v, i) => (keys[i] === 'name' ? typeof v === 'string' && v.length <= 1000 && !v.includes('\0') : Number.isSafeInteger(v)));
    return fits ? (key as Key) : undefined;
  } catch {
    return undefined;
  }
}

export const keyOf = (row: Record<string, unknown>, keys: readonly string[]): Key => keys.map((k) => row[k] as number | string);
