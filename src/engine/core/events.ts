/** What `queue.events$` emits: each transition this process made, and runs that will not end. */
import type { ErrorInfo } from '../../../machines/policy.js';
import type { HeldBack } from '../../store/store.js';

/** A job changed state (one per transition this process committed). */
export interface JobTransitionEvent {
  /** `job:<state entered>`: `job:pending`, `job:processing`, `job:completed`, `job:failed`, `job:dead`, `job:cancelled`, … */
  type: `job:${string}`;
  job: { id: number; name: string };
  /** The state left (`null` when the job was created). */
  from: string | null;
  /** The state entered. */
  to: string;
  /** The machine event that caused it (`job.claim`, `job.fail`, …). */
  event: string;
  at: Date;
  /** Attempts spent when the transition happened. */
  attempts: number;
  workerId?: string;
  error?: ErrorInfo;
  /** When the new state is left on its own (a retry's due time). */
  runAt?: Date;
  /** On a claim: how long the job had been due (since its run time, or its creation if later), ms. */
  waitedMs?: number;
}

/** One claim by this process: `count` jobs leased in one transaction (`queue.claims$`). */
export interface ClaimBatchEvent {
  count: number;
  owner: string;
  at: Date;
}

/**
 * One pass of this process's claim loop has ended (queue.passes$): what it
 * found. A test waits on these instead of sleeping: "the loop looked after
 * the pause and took nothing" is a pass that ended with `claimed: 0`.
 */
export interface ClaimPassEvent {
  type: 'pass:ended';
  at: Date;
  /** Jobs the pass claimed, over all its claims. */
  claimed: number;
  /** Free slots (idle workers and room in the prefetch buffer) at its last look; 0: it claimed nothing because none were free. */
  free: number;
  /** When the loop looks next without being woken (the next due job, clamped), or null when no job is due later. */
  nextLookAt: Date | null;
  /** The pass failed (the database out of reach): the loop tries again after a back-off. */
  failed: boolean;
}

/**
 * A handler was told to stop (timeout, cancel, shutdown, lost lease) and has
 * not returned after the grace period. Its run keeps its worker slot and its
 * lease until it returns, so the job cannot start again meanwhile.
 */
export interface RunStuckEvent {
  type: 'run:stuck';
  job: { id: number; name: string };
  attempts: number;
  workerId: string;
  /** Why the handler was told to stop: `timeout`, `cancel`, `shutdown` or `lease`. */
  reason: string;
  /** When it was told to stop. */
  abortedAt: Date;
  at: Date;
}

export type QueueEvent = JobTransitionEvent | RunStuckEvent;

export function transitionEvent(
  job: { id: number; name: string },
  from: string | null,
  to: string,
  event: string,
  at: number,
  attempts: number,
  extra?: { workerId?: string; error?: ErrorInfo | null; runAt?: number; waitedMs?: number },
): JobTransitionEvent {
  const e: JobTransitionEvent = { type: `job:${to}`, job, from, to, event, at: new Date(at), attempts };
  if (extra?.workerId) e.workerId = extra.workerId;
  if (extra?.error) e.error = extra.error;
  if (extra?.runAt !== undefined) e.runAt = new Date(extra.runAt);
  if (extra?.waitedMs !== undefined) e.waitedMs = extra.waitedMs;
  return e;
}

/** Narrows an event to a job transition. */
export function isTransition(e: QueueEvent): e is JobTransitionEvent {
  return e.type.startsWith('job:');
}

/** The prefetch buffer's modes (claim/claim-buffer.ts). */
export const BufferMode = { starting: 'starting', filling: 'filling', empty: 'empty', stocked: 'stocked', low: 'low', stopped: 'stopped' } as const;
export type BufferMode = (typeof BufferMode)[keyof typeof BufferMode];

/** Why jobs left the buffer without being taken by a worker. */
export type HandBackReason = 'overflow' | 'late' | 'paused' | 'lost' | 'stopped';

export type BufferEvent =
  | { type: 'buffer:mode'; at: Date; mode: BufferMode; from: BufferMode; waiting: number }
  | { type: 'buffer:claimed'; at: Date; asked: number; got: number; starved: boolean; heldBack: HeldBack | null }
  | { type: 'buffer:handed-back'; at: Date; why: HandBackReason; jobs: number[] };
