/**
 * The store contract's types for flows (enqueueFlow, enqueueBatch) and
 * durable steps (ctx.step, ctx.sleep): what a store inserts, reports back
 * and keeps.
 */
import type { ErrorInfo } from '../../machines/policy.js';
import type { NewJob } from './records.js';

export interface FlowState {
  left: number;
  failed: number;
  onChildFailure: OnChildFailure;
}

/** What a flow's parent does when a child ends `dead` (or `cancelled`): fail at once, or run once every child has finished. */
export type OnChildFailure = 'fail' | 'continue';

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

/**
 * How a parent leaves its waiting state, read off the job machine's
 * `job.children` edges at start-up (engine/machine-registry.ts): the store
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

/** A completed step (ctx.step) or sleep (ctx.sleep) of a job, as stored. */
export interface StepRecord {
  name: string;
  /** 1 for the job's first completed step, 2 for the next, … */
  seq: number;
  /** JSON text of the step's result; null: undefined. */
  result: string | null;
  /** A sleep: when it ends, ms since the epoch; null for a step. */
  wakeAt: number | null;
  attempt: number;
  at: number;
}

/** One step to record: the job, the lease token its run holds, the step. */
export interface StepSave {
  id: number;
  token: string;
  step: Omit<StepRecord, 'seq'>;
}
