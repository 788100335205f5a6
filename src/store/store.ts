/**
 * The storage contract. Every method is async so that a networked store
 * (PostgreSQL: FOR UPDATE SKIP LOCKED, LISTEN/NOTIFY) can implement the same
 * contract; the SQLite store answers synchronously underneath.
 *
 * The store never decides a state: the queue runs the job machine and hands
 * the store the target it produced. Every change is a compare-and-set on
 * (id, state, lease token), so a worker that lost its lease cannot settle.
 */
import type { ErrorInfo } from '../../machines/policy.js';

/** A job as it lies in the store (payload and result already parsed). */
export interface JobRecord {
  id: number;
  name: string;
  state: string;
  payload: unknown;
  key: string | null;
  priority: number;
  /** When the job is (or was) due, ms since the epoch. */
  runAt: number;
  attempts: number;
  lastError: ErrorInfo | null;
  result: unknown;
  progress: number | null;
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
}

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
}

export interface InsertResult {
  id: number;
  created: boolean;
}

export interface ClaimRequest {
  /** Only jobs with these names are claimed. */
  names: readonly string[];
  limit: number;
  owner: string;
  leaseMs: number;
  now: number;
}

/** A claimed job: the lease token proves ownership until `lockedUntil`. */
export interface ClaimedJob {
  id: number;
  name: string;
  /** JSON text: parsed by the worker that runs it. */
  payload: string;
  attempts: number;
  lastError: ErrorInfo | null;
  ctx: Record<string, unknown> | null;
  retry: Record<string, unknown> | null;
  timeout: number | null;
  token: string;
  lockedUntil: number;
}

export interface TransitionRequest {
  id: number;
  from: string;
  /** The lease token the caller holds; `null` for a job that is not leased. */
  token: string | null;
  to: string;
  /** The machine event that produced this change. */
  event: string;
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
  /** Delete the job (and its history) instead of writing `to`: retention 0. */
  purge?: boolean;
}

export interface HistoryEntry {
  from: string | null;
  to: string;
  event: string;
  at: number;
  workerId?: string;
  leaseToken?: string;
  error?: ErrorInfo;
}

export interface ListFilter {
  state?: string;
  name?: string;
  limit?: number;
  /** Cursor: only jobs with an id greater than this. */
  after?: number;
}

export interface QueueStats {
  total: number;
  byState: Record<string, number>;
  byName: Record<string, Record<string, number>>;
}

/** A job that sits in a state the machine leaves on its own after a delay. */
export interface DueJob {
  id: number;
  name: string;
  state: string;
  attempts: number;
  lastError: ErrorInfo | null;
  ctx: Record<string, unknown> | null;
  retry: Record<string, unknown> | null;
  leaseToken: string | null;
  leaseOwner: string | null;
}

export interface Store {
  insert(jobs: readonly NewJob[], at: number): Promise<InsertResult[]>;
  claim(request: ClaimRequest): Promise<ClaimedJob[]>;
  /** Compare-and-set transitions, all in one transaction; `false` where the CAS missed. */
  transition(requests: readonly TransitionRequest[]): Promise<boolean[]>;
  heartbeat(id: number, token: string, lockedUntil: number): Promise<boolean>;
  progress(id: number, token: string, progress: number): Promise<boolean>;
  /** Processing jobs of these names whose lease ran out before `now`. */
  expiredLeases(names: readonly string[], now: number, limit: number): Promise<DueJob[]>;
  /** Jobs of these names, in one of `states`, whose `run_at` has come. */
  dueJobs(names: readonly string[], states: readonly string[], now: number, limit: number): Promise<DueJob[]>;
  /** The earliest `run_at` among jobs of these names in `states`, or null. */
  nextDueAt(names: readonly string[], states: readonly string[]): Promise<number | null>;
  get(id: number): Promise<JobRecord | undefined>;
  list(filter: ListFilter): Promise<JobRecord[]>;
  history(id: number): Promise<HistoryEntry[]>;
  stats(): Promise<QueueStats>;
  /** True when another connection committed since the last call (cheap; polled). */
  externalChange(): boolean;
  backup(destination: string): Promise<void>;
  /** Deletes up to `limit` jobs finished in `state` before `before`, with their history; returns how many. */
  purgeFinished(state: string, before: number, limit: number): Promise<number>;
  close(): Promise<void>;
}
