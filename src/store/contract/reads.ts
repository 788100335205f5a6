/**
 * Reads for people rather than workers: listings, pages of one state's jobs,
 * counts, and what changed after a cursor (the dashboard's feed) with the
 * leases that go with it.
 */
import type { WhereClause } from '../where.js';

export interface ListFilter {
  state?: string;
  name?: string;
  limit?: number;
  /** Cursor: only jobs with an id greater than this (`newest`: smaller than this). */
  after?: number;
  /** Newest first (id descending); `after` then pages towards older jobs. */
  newest?: boolean;
}

export interface QueueStats {
  total: number;
  byState: Record<string, number>;
  byName: Record<string, Record<string, number>>;
}

/** `browse()`: one page of the jobs in one state (the dashboard's listing). */
export interface BrowseFilter {
  state: string;
  name?: string;
  /** Payload search (see where.ts). */
  where?: readonly WhereClause[];
  /** 1..500; default 100. */
  limit?: number;
  /** `next` of the previous page. */
  cursor?: string;
  /**
   * The caller writes nothing (a read-only server): where a listing would
   * first build an index (SQLite's finished jobs by age), it sorts instead.
   */
  readOnly?: boolean;
}

/** A job as a listing shows it: no full payload, result or context. */
export interface JobSummary {
  id: number;
  name: string;
  state: string;
  /** The job's version as read (JobRecord `version`): a decision made on this summary lands only while the job is still at it. */
  version: number;
  attempts: number;
  priority: number;
  runAt: number;
  createdAt: number;
  updatedAt: number;
  leaseOwner: string | null;
  /** The latest `ctx.progress()` value (null: none). */
  progress: unknown;
  /** The last error's message. */
  error: string | null;
  /** The payload's JSON text, cut at 200 characters. */
  payload: string;
}

export interface BrowsePage {
  jobs: JobSummary[];
  /** Where the next page starts; null at the end. A filtered page may be short and still have a next. */
  next: string | null;
  /** Rows read for this page. */
  scanned: number;
}

/**
 * How far a reader of the store's changes has seen: the newest job id and
 * history row id it read. Both only grow, in commit order.
 */
export interface ChangeCursor {
  jobId: number;
  historyId: number;
}

/** Job ids in (after, upTo]. */
export interface IdRange {
  after: number;
  upTo: number;
}

export interface ChangeOptions {
  /** Read no further than this cursor (default: everything committed). */
  upTo?: ChangeCursor;
  /** Claims to sample for wait times (newest first). Default 500. */
  latencySamples?: number;
  /** Also count the jobs with these ids by state and name, in the same read (left out when the read stops short: `more`). */
  countIds?: IdRange;
  /** Flag (`marked`) the transitions of jobs with these ids. */
  markIds?: IdRange;
  /** How many of the newest changes `recent` holds at most (default 50); as many as `limit`: every change read. */
  recent?: number;
  /**
   * The change feed (`queue.watch()`): `recent` holds every change read, in
   * the feed's order (change-feed.ts), and the cursor stops where that order
   * must; nothing is aggregated or counted.
   */
  feed?: boolean;
}

export interface TransitionGroup {
  /** `at` / 1000, floored. */
  second: number;
  from: string | null;
  to: string;
  event: string;
  /** The guarded candidate taken when not the first (see TransitionRequest.candidate); null for the first. */
  candidate: number | null;
  /** `null` when the job is gone. */
  name: string | null;
  /** The job's id lies in `markIds`. */
  marked: boolean;
  count: number;
}

/** One change in detail: a transition, or an enqueue (`from: null`, event `job.enqueue`). */
export interface RecentChange {
  /** The job's id. */
  id: number;
  /** The change's place in its own sequence: the history row's id, or for an enqueue the job's id (what a cursor counts). */
  seq: number;
  name: string | null;
  from: string | null;
  to: string;
  event: string;
  at: number;
  /** A progress update's value (event `job.progress`, from and to the state it ran in), JSON text; null for a move. */
  data?: string | null;
}

export interface StateNameCount {
  state: string;
  name: string;
  count: number;
}

/** What changed after a cursor: new jobs and history rows, aggregated. */
export interface ChangeBatch {
  /** Where the next read starts. */
  cursor: ChangeCursor;
  /** The read stopped at its row limit: more changes follow. */
  more: boolean;
  /**
   * Changes past the cursor are in the store but not final yet (PostgreSQL:
   * ids whose transaction is still open below committed ones): read again soon.
   */
  held?: boolean;
  /** New jobs by second of creation and name. */
  /** `state`: the state the jobs were created in (pending, or waiting-children for a flow's parents). */
  enqueued: Array<{ second: number; name: string; state?: string; count: number }>;
  transitions: TransitionGroup[];
  /** The newest ≤ 50 changes, oldest first (ChangeOptions `recent`); with `feed`, every change read, in the feed's order. */
  recent: RecentChange[];
  /** Sampled claims: when, how long the job had waited to start (ms), and its name (stores always give it). */
  latency: Array<{ at: number; ms: number; name?: string }>;
  /** Lease owners that claimed, with their last claim's time. */
  claimers: Array<{ owner: string; at: number }>;
  counts?: StateNameCount[];
  /** Jobs deleted so far without a transition (retention), as of this read (left out when `more`). */
  deleted?: number;
  /** The paused names (`''` for the whole queue), sorted, as of this read (left out when `more`). */
  paused?: string[];
}

/** A job held under a lease. */
export interface LeaseView {
  id: number;
  name: string;
  owner: string | null;
  lockedUntil: number | null;
  /** JSON text of the latest `ctx.progress()`. */
  progress: string | null;
  /** When it was claimed. */
  since: number;
}
