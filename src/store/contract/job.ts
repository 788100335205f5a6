/**
 * The job's shapes in the store contract, each for one reason:
 *
 * - `NewJob`: a job to insert, checked and built by the engine (enqueue/new-job.ts);
 * - `JobRecord`: a job as every store method gives it back, payload and
 *   result still JSON text (what the engine decides on);
 * - `LeasedJob`: a record a claim took, with its lease;
 * - `InsertResult`, `HistoryEntry`: what an insert answers, a history row.
 *
 * Beside these, a job has two shapes outside the contract: its row, the
 * database's columns as each driver returns them (rows.ts maps a row to a
 * record, in one place for both stores), and its public view, with dates and
 * parsed JSON (engine/core/job-view.ts), which only the facade gives out.
 */
import type { ErrorInfo } from '../../../machines/policy.js';

/**
 * A job as it lies in the store: the one shape every store method returns.
 * Payload and result stay JSON text here; the worker parses the payload it
 * runs, and the public view (engine/core/job-view.ts) parses both for readers.
 */
export interface JobRecord {
  id: number;
  name: string;
  state: string;
  /** JSON text. */
  payload: string;
  key: string | null;
  priority: number;
  /** When the job is (or was) due, ms since the epoch. */
  runAt: number;
  attempts: number;
  lastError: ErrorInfo | null;
  /** JSON text of the handler's result. */
  result: string | null;
  /** JSON text of the latest `ctx.progress()`. */
  progress: string | null;
  /** Retry-policy override given at enqueue, if any. */
  retry: Record<string, unknown> | null;
  timeout: number | null;
  /** Machine context beyond `attempts` and `lastError`. */
  ctx: Record<string, unknown> | null;
  leaseOwner: string | null;
  leaseToken: string | null;
  lockedUntil: number | null;
  createdAt: number;
  updatedAt: number;
  /**
   * Moves on (+1) with every claim and every change of state: a transition
   * names the version its decision was made on, and lands only while the job
   * is still at it (TransitionRequest `version`).
   */
  version: number;
  /** The unique, debounce or throttle key the job holds now, when the row was read with it (get, list). */
  heldKey?: { kind: UniqueGuard['kind']; key: string } | null;
  /** The concurrency group the job was enqueued in (`group`), when the row was read with it. */
  group?: string | null;
  /** The flow parent waiting on this job (enqueueFlow, enqueueBatch), when the row was read with it. */
  parentId?: number | null;
  /** A flow parent's children: not finished yet, ended dead or cancelled, and its policy; null when not a parent. */
  flow?: FlowState | null;
  /** The trace context the job was enqueued in (NewJob `traceContext`), when the row was read with it (a claim). */
  traceContext?: string | null;
}

/** What a flow's parent does when a child ends `dead` (or `cancelled`): fail at once, or run once every child has finished. */
export type OnChildFailure = 'fail' | 'continue';

export interface FlowState {
  left: number;
  failed: number;
  onChildFailure: OnChildFailure;
}

/**
 * A job held under a lease: a claim's result. `startBy` is set on a
 * rate-limited job claimed ahead of a free worker (`ClaimRequest.startWithinMs`):
 * its token is stamped at that time, so it must start before it or be handed
 * back unstarted.
 */
export type LeasedJob = JobRecord & { leaseToken: string; lockedUntil: number; startBy?: number };

export interface NewJob {
  name: string;
  state: string;
  /** JSON text. */
  payload: string;
  key: string | null;
  priority: number;
  runAt: number;
  /** JSON text of a retry-policy override. */
  retry: string | null;
  timeout: number | null;
  /** A unique, debounce or throttle key (engine/core/unique.ts); absent or null: none. */
  unique?: UniqueGuard | null;
  /** Concurrency group (`group` at enqueue); absent or null: none. */
  group?: string | null;
  /** The trace context of the enqueue (telemetry/trace-context.ts: W3C fields as JSON text); absent or null: none. */
  traceContext?: string | null;
}

/**
 * How long a unique key is held, shortest first: a row holds its key while
 * its span is at least the need of its state (TransitionRequest
 * `uniqueNeed`; engine/core/unique.ts decides the needs). A claim moves a job to
 * the claimed state, whose need is `active`: keys of a shorter span end
 * there. Throttle holds it in every state: only its window ends it. The
 * stores' SQL reads these as `{{span.active}}` … (sql-text.ts).
 */
export const UniqueSpan = { pending: 1, active: 2, 'until-finished': 3, always: 4 } as const;

/**
 * A key that makes a job unique while the job is in some states. A store
 * keeps at most one job holding each (kind, key) at a time. On insert, a
 * held key hands back its holder (`created: false`), except that a debounce
 * key updates its holder's payload and run time first, and a throttle key
 * whose window (`until`) has passed is given back and taken by the new job.
 */
export interface UniqueGuard {
  /** Each kind is its own namespace of keys. */
  kind: 'unique' | 'debounce' | 'throttle';
  key: string;
  /** How long the key is held (`UniqueSpan`): see TransitionRequest `uniqueNeed`. */
  span: number;
  /** Throttle: when the window ends, ms since the epoch, on the database's clock (engine/core/shared-time.ts). */
  until: number | null;
  /** Throttle: the window's length, ms (`until` is the database's time at the insert plus this). */
  windowMs?: number;
  /** Throttle: the database's time at the insert, at least: a holder whose window ended by then gives its key back. Absent: the insert's `at`. */
  clockAt?: number;
}

export interface InsertResult {
  id: number;
  created: boolean;
  /** The job's state as the insert left it: its initial state, or, for an existing key, the first job's state then. */
  state: string;
}

export interface HistoryEntry {
  from: string | null;
  to: string;
  event: string;
  /** The guarded candidate taken, when not the first with this event and target (see TransitionRequest). */
  candidate?: number;
  at: number;
  workerId?: string;
  leaseToken?: string;
  error?: ErrorInfo;
}

/**
 * How a job deleted by the move that finished it (retention 0) ended, kept
 * for a while after (`trimOutcomes`): what `result()` and the change feed
 * still read of it. Its history rows stay as long.
 */
export interface JobOutcome {
  id: number;
  name: string;
  state: string;
  /** The result's JSON text, as the row held it. */
  result: string | null;
  lastError: ErrorInfo | null;
  createdAt: number;
  finishedAt: number;
}

/** Kept outcomes one `trimOutcomes` call looks at, oldest ids first: a pass reads a bounded number of rows. */
export const TRIM_WINDOW = 5000;
