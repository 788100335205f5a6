/**
 * Writing jobs other than by a move: inserts (batched, synchronous, through
 * the caller's client, a flow's tree) and deletions (by an operator, a
 * clean, retention).
 */
import type { InsertResult, NewJob, OnChildFailure } from './job.js';

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

/** One node of a flow to insert: the job, and its children, which it waits for (enqueueFlow). */
export interface NewFlowNode {
  job: NewJob;
  onChildFailure: OnChildFailure;
  children: readonly NewFlowNode[];
}

export interface FlowInsertResult {
  id: number;
  state: string;
  children: FlowInsertResult[];
}

/** A job to delete (`removeJobs`): as it was read. It goes only while still at this version, in this state, with no lease. */
export interface RemoveTarget {
  id: number;
  version: number;
  state: string;
  /**
   * Deleted by its state's retention 0 once nothing held it (not by a
   * caller): its outcome is kept and its history stays, as a finishing move
   * that deletes the job keeps them (`JobOutcome`).
   */
  finished?: boolean;
  /** With `finished`: as TransitionRequest `throttleAt` (a job whose throttle window is open then stays). Absent: `at`. */
  throttleAt?: number;
}

/** How retention's deletes go (`purgeFinished`, `purgeNamed`). */
export interface PurgeTerms {
  /** The database's time now: a job whose throttle window is still open then stays (TransitionRequest `throttleAt`). Absent: the store's clock. */
  throttleAt?: number;
  /**
   * A retention of 0 deletes them (jobs the finishing move could not delete:
   * a throttle window was open, another process did not know the rule): each
   * keeps its outcome and history, as that move would (`JobOutcome`).
   */
  keepOutcomes?: boolean;
}

/** Finished jobs of one state across names (`purgeFinished`): but those of the names in `except`. */
export interface FinishedPurge extends PurgeTerms {
  except?: readonly string[];
}

/** One job name's finished jobs of a state that its retention no longer keeps (`purgeNamed`). */
export interface NamedPurge extends PurgeTerms {
  name: string;
  state: string;
  /** Those updated before this time. */
  before?: number;
  /** Those past the newest `keep` (by when they finished). */
  keep?: number;
}

/** Jobs to delete by state (`cleanJobs`): of one name when `name` is set, in `state` since before `before`, at most `limit`. */
export interface CleanFilter {
  state: string;
  name?: string;
  before: number;
  limit: number;
}
