/**
 * What a move of a job asks and answers: the shapes the one path by which a
 * job changes state (move/apply-event.ts) takes and gives, and the notice of
 * a committed move. Here, on the shared ground, so that every room that moves
 * a job (run, claim, the facade's actions) names them without importing the
 * room that makes the moves.
 */
import type { JobEvent } from '../../../machines/job.machine.js';
import type { ErrorInfo } from '../../../machines/policy.js';
import type { JobRecord, TransitionRequest } from '../../store/store.js';

/** What the machine needs to know of a job to move it (its version, and the lease token when the job is held). */
/** `runAt`, when known: a LIFO job's place in line (core/lifo.ts), which a hand-back or an update keeps. */
export type ApplyTarget = Pick<JobRecord, 'id' | 'name' | 'state' | 'version' | 'attempts' | 'lastError' | 'ctx' | 'retry' | 'leaseToken' | 'parentId'> & { runAt?: number };

export type ApplyResult =
  | { accepted: false }
  | { accepted: true; committed: boolean; to: string; attempts: number; runAt: number | undefined; from: string };

export interface TransitionNotice {
  job: { id: number; name: string };
  from: string;
  to: string;
  event: string;
  at: number;
  attempts: number;
  /** The attempts spent before the move: a run's own attempt number when the move ends it (a failed attempt the machine did not count leaves `attempts` below it). */
  attemptsBefore?: number;
  workerId?: string;
  error?: ErrorInfo | null;
  runAt?: number;
}

declare const ownEvent: unique symbol;
/**
 * An event a custom machine defines itself: one a caller sent (`queue.send`,
 * after refusing those the runtime alone sends) or a delayed edge the sweep
 * fires. Made only by `machineEvent`, so that every other path applies a
 * `JobEvent`, whose fields the compiler checks.
 */
export type MachineEvent = { type: string; readonly [ownEvent]: true } & Record<string, unknown>;

/** Marks an event as the machine's own (see MachineEvent). */
export const machineEvent = (event: { type: string } & Record<string, unknown>): MachineEvent => event as MachineEvent;

export type ApplyEvent = (job: ApplyTarget, event: JobEvent | MachineEvent, extra?: ApplyExtra) => Promise<ApplyResult>;

export interface ApplyExtra {
  workerId?: string;
  result?: string;
  /** Keep trying, backing off, while the database is out of reach (commit.ts). */
  retryUnavailable?: boolean;
  /** A job released for later (a RateLimitedError): due then. A job updated (`job.update`): its run time. */
  runAt?: number;
  /** New fields written with the move (`queue.update`). */
  set?: TransitionRequest['set'];
  /** A lease expiry: lands only while the lease has still run out at this time (TransitionRequest `expiredBy`). */
  expiredBy?: number;
  /**
   * After a missed compare-and-set: whether the event still stands for the
   * job as it is now (read afresh); if so, the machine decides again on that
   * row. Absent: a miss is the answer (`committed: false`).
   */
  again?: (fresh: JobRecord) => boolean;
}

/** Gives back the hold of the run under `token` on job `id`, if the job holds it still out of the claimed state. */
export type ReleaseHold = (id: number, token: string) => Promise<void>;
