/**
 * What the store's methods take and give besides the records themselves:
 * claim and transition requests, filters, and the reports of stats, backups
 * and doctor. Re-exported by store.ts, the contract.
 */
import type { ErrorInfo } from '../../machines/policy.js';
import type { FlowLink, ParentMove } from './flow-types.js';

/** What a batch of transitions did, request by request. */
export interface TransitionResult {
  /** Whether each request's compare-and-set landed. */
  moved: boolean[];
  /** The flow parents each request moved (a nested flow moves its ancestors in turn): each parent reported on the first of its children's requests. */
  parentMoves: ParentMove[][];
}
import type { NameLimits } from './limit-types.js';
import type { InsertResult } from './records.js';

/**
 * What a claim writes, read off the job machine's claim edge at start-up
 * (engine/machine-registry.ts): the store never decides a state by itself.
 */
export interface ClaimRule {
  /** The state claimed from (the machine's initial state). */
  from: string;
  /** The state a claimed job enters. */
  to: string;
  /** Attempts the claim spends. */
  attempts: number;
  /** The machine event recorded in the history. */
  event: string;
}

export interface ClaimRequest {
  /** Only jobs with these names are claimed. */
  names: readonly string[];
  limit: number;
  owner: string;
  leaseMs: number;
  now: number;
  rule: ClaimRule;
  /**
   * Limits of the names that have any (defineJob's `groupConcurrency`,
   * `globalConcurrency`, `rateLimit`), enforced inside the claim's
   * transaction. Grouped jobs are claimed group by group in any case.
   */
  limits?: ReadonlyMap<string, NameLimits>;
  /**
   * The workers idle now, which take the claim's first `startNow` jobs in
   * the order the claim returns them: a rate-limited job is taken only among
   * those, since one further back would wait in the prefetch buffer and
   * start later, closer to the next window's jobs. Absent: `limit`.
   */
  startNow?: number;
  /**
   * Each rate-limited job this claim takes comes back with `startBy` (`now`
   * plus this many ms, on the claimer's clock), and the claimer starts it
   * before then or hands it back unstarted.
   */
  startWithinMs?: number;
  /**
   * Rate limits and pauses on the database's clock (engine/shared-time.ts).
   * `now`: no later than the database's time as the claim reads (tokens
   * come back, and pauses end, by it). `stampAt`: no earlier than the
   * database's time when the last job taken may start (`startBy`): each
   * token spent is stamped there, so it comes back `perMs` after its job's
   * start at the earliest, and no window of `perMs` holds more than `max`
   * starts (claim-limits.ts). `ahead`: rate-limited jobs may also go past
   * `startNow`, into a prefetch buffer (no limit binds). Absent: `now` is the
   * claim's, stamps at `now + startWithinMs`, ahead when `startWithinMs` is given.
   */
  rate?: { now: number; stampAt: number; ahead: boolean };
}

export interface TransitionRequest {
  id: number;
  /** The job's version the decision was made on (JobRecord `version`): the move lands only while the job is still at it. */
  version: number;
  from: string;
  /** The lease token the caller holds; `null` for a job that is not leased. */
  token: string | null;
  to: string;
  /** The machine event that produced this change. */
  event: string;
  /** Which of the event's guarded candidates with this target was taken, when not the first (2, 3, …). */
  candidate?: number;
  at: number;
  attempts: number;
  lastError: ErrorInfo | null;
  ctx: Record<string, unknown> | null;
  /** New due time (delayed states, released jobs); unchanged when absent. */
  runAt?: number;
  /** JSON text of the handler's result. */
  result?: string;
  workerId?: string | null;
  /** Set on the history row (the error that caused this transition). */
  error?: ErrorInfo | null;
  /**
   * A lease expiry: lands only while the lease has still run out at this
   * time (a renewal that came after the sweeper's read keeps the job).
   */
  expiredBy?: number;
  /** Delete the job (and its history) instead of writing `to`: retention 0. */
  purge?: boolean;
  /**
   * The move is not made by the run that holds the job (a cancel, an
   * operator's or a custom event): the run's lease stays on the job as a
   * hold (transition-set.sql) until the run gives it back (run-holds.ts).
   * Absent: the lease goes with a move out of the claimed state.
   */
  keepsHold?: boolean;
  /**
   * Set when `to` is a finished state: if the job has a flow parent, the
   * parent's counts change in this same transaction, and it moves by the
   * rule when this was its last child (or a failed one under 'fail'). The
   * store reports such moves in its answer (`TransitionResult.parentMoves`).
   */
  flow?: FlowLink;
  /** New fields written with the move (`queue.update` of a pending job): a JSON payload text, a priority. */
  set?: { payload?: string; priority?: number };
  /**
   * The least unique span that still holds its key in `to`: a job whose
   * span is shorter gives its unique key back (NULL) in this same write.
   * Absent: keys stay as they are.
   */
  uniqueNeed?: number;
}

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

/** A job to delete (`removeJobs`): as it was read. It goes only while still at this version, in this state, with no lease. */
export interface RemoveTarget {
  id: number;
  version: number;
  state: string;
}

/** Jobs to delete by state (`cleanJobs`): of one name when `name` is set, in `state` since before `before`, at most `limit`. */
export interface CleanFilter {
  state: string;
  name?: string;
  before: number;
  limit: number;
}

/** Backup progress, in database pages. */
export interface BackupProgress {
  totalPages: number;
  remainingPages: number;
}

/** What `doctor` reports: the file's health and size, and leases nobody renews. */
export interface StoreDiagnostics {
  store: 'sqlite' | 'postgres';
  path: string;
  /** Size of the database file, bytes. */
  fileBytes: number;
  /** Size of the write-ahead log, bytes (0 right after a checkpoint). */
  walBytes: number;
  pageSize: number;
  pageCount: number;
  /** Pages on the free list (reused before the file grows). */
  freePages: number;
  /** The page cache this connection may hold, bytes. */
  cacheBytes: number;
  journalMode: string;
  /** Processing jobs whose lease ran out (their worker is gone or stuck; the sweeper retries them). */
  expiredLeases: number;
  /** `PRAGMA integrity_check`'s lines (`['ok']` when sound); only when asked for. */
  integrity?: string[];
}

/** What insertSync() wrote, and whether that write is already committed. */
export interface SyncInsert {
  results: InsertResult[];
  /**
   * True when the write committed by itself (no transaction of the
   * application's was open on its connection); false when it waits for the
   * application's COMMIT (or ROLLBACK), which the store cannot see.
   */
  committed: boolean;
}

/**
 * A database connection the caller owns: a `pg` Client or PoolClient, usually
 * inside the caller's BEGIN … COMMIT.
 */
export interface CallerClient {
  query(text: string, values?: unknown[]): Promise<unknown>;
}
