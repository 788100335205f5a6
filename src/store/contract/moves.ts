/**
 * Claims and transitions: what the claim takes (its rule, the limits each
 * name carries) and answers, and the compare-and-set transitions with the
 * flow parents they move. The methods are `JobMoves` (store.ts).
 */
import type { ErrorInfo } from '../../../machines/policy.js';
import type { LeasedJob } from './job.js';

/**
 * What a claim writes, read off the job machine's claim edge at start-up
 * (engine/core/machine-registry.ts): the store never decides a state by itself.
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
   * Rate limits and pauses on the database's clock (engine/core/shared-time.ts).
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

/** What one job name may use at once, across every process (claim-limits.ts enforces it). */
export interface NameLimits {
  /** Jobs of one group (this name's jobs counting every job of the group) running at once. */
  groupConcurrency?: number;
  /** Jobs of this name running at once. */
  globalConcurrency?: number;
  rateLimit?: RateLimitRule;
}

/** At most `max` claims in any `perMs` window: each token spent comes back `perMs` later. */
export interface RateLimitRule {
  max: number;
  perMs: number;
  /** A bucket per group for this name's grouped jobs (ungrouped ones share the name's). */
  perGroup: boolean;
}

/**
 * Due jobs a claim left behind for a limit: `until` is when a rate-limit
 * token or a pause comes back, null when only a running job's end frees them
 * (the claim loop then waits for one); `tokensOut` when some stayed for lack
 * of a rate-limit token.
 */
export interface HeldBack {
  until: number | null;
  tokensOut?: boolean;
}

/** A claim's jobs, in claim order, and what it left behind for a limit (absent: nothing). */
export interface ClaimResult {
  jobs: LeasedJob[];
  heldBack?: HeldBack;
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
   * With `purge`: the database's time now (SharedTime `lo`). A job whose
   * throttle window is still open then is moved to `to` as asked, not
   * deleted: the window lives in its row, and retention does not end it
   * early (the retention loop deletes the job once it has passed). Absent:
   * `at`.
   */
  throttleAt?: number;
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

/** What a batch of transitions did, request by request. */
export interface TransitionResult {
  /** Whether each request's compare-and-set landed. */
  moved: boolean[];
  /** The flow parents each request moved (a nested flow moves its ancestors in turn): each parent reported on the first of its children's requests. */
  parentMoves: ParentMove[][];
}

/**
 * How a parent leaves its waiting state, read off the job machine's
 * `job.children` edges at start-up (engine/core/machine-registry.ts): the store
 * applies it in the transaction that finishes the child, so a parent never
 * misses its last child, whatever crashes.
 */
export interface FlowRule {
  /** The state a parent waits in. */
  from: string;
  event: string;
  /** Where the parent goes once every child has finished. */
  done: string;
  /** Where it goes when a child failed and its policy is 'fail' (with the child's error). */
  failed: string;
  /** States a child has finished in (the machine's final states). */
  finished: readonly string[];
  /** Finished states that count as a failure of the child. */
  failures: readonly string[];
}

/** A flow child's tie to its parent, on a transition that finishes the child or takes it back from finished. */
export interface FlowLink {
  rule: FlowRule;
  parentId: number;
  /** The child's name (for the error a failed parent records). */
  name: string;
}

/** A parent moved by the store under a FlowRule (reported back on the TransitionRequest that caused it). */
export interface ParentMove {
  id: number;
  name: string;
  from: string;
  to: string;
  event: string;
  at: number;
  attempts: number;
  error: ErrorInfo | null;
}
