/**
 * An action on a selection of jobs, as the dashboard offers it (cancel,
 * retry). Each job is its own transition (the machine decides it; the
 * transitions share commits), so one job that moved meanwhile is skipped,
 * not a reason to undo the rest.
 */
import { LitejobsError } from '../errors.js';
import type { Queue } from '../queue.js';

export interface Skipped {
  id: number;
  code: string;
  message: string;
}

export interface CancelOutcome {
  cancelled: number[];
  skipped: Skipped[];
}

export interface RetryOutcome {
  /** How many went back to pending. */
  retried: number;
  skipped: Skipped[];
}

/** A job that is gone or whose machine refuses the event is skipped; any other error stops the run. */
function skippable(err: unknown): err is LitejobsError {
  return err instanceof LitejobsError && (err.code === 'LJ_ERR_INVALID_TRANSITION' || err.code === 'LJ_ERR_JOB_NOT_FOUND');
}

/** Runs `act` on every id at once; the ids it did, and those skipped with why, in the order given. */
async function eachJob(ids: readonly number[], act: (id: number) => Promise<unknown>): Promise<{ done: number[]; skipped: Skipped[] }> {
  const settled = await Promise.allSettled(ids.map(act));
  const out = { done: [] as number[], skipped: [] as Skipped[] };
  settled.forEach((r, i) => {
    const id = ids[i]!;
    if (r.status === 'fulfilled') out.done.push(id);
    else if (skippable(r.reason)) out.skipped.push({ id, code: r.reason.code, message: r.reason.message });
    else throw r.reason;
  });
  return out;
}

/** Cancels these jobs. */
// biome-ignore lint/suspicious/noExplicitAny: any typed queue
export async function cancelJobs(queue: Queue<any>, ids: readonly number[]): Promise<CancelOutcome> {
  const { done, skipped } = await eachJob(ids, (id) => queue.cancel(id));
  return { cancelled: done, skipped };
}

/** Sends these (dead) jobs back to pending with fresh attempts. */
// biome-ignore lint/suspicious/noExplicitAny: any typed queue
export async function retryJobs(queue: Queue<any>, ids: readonly number[]): Promise<RetryOutcome> {
  const { done, skipped } = await eachJob(ids, (id) => queue.retry(id));
  return { retried: done.length, skipped };
}
