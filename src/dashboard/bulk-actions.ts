/**
 * Cancelling a selection of jobs, as the dashboard offers it. Each job is
 * its own transition (the machine decides it), so one job that moved
 * meanwhile is skipped, not a reason to undo the rest.
 */
import { LitejobsError } from '../errors.js';
import type { Queue } from '../queue.js';

export interface CancelOutcome {
  cancelled: number[];
  skipped: Array<{ id: number; code: string; message: string }>;
}

/** A job that is gone or whose machine refuses the event is skipped; any other error stops the run. */
function skippable(err: unknown): err is LitejobsError {
  return err instanceof LitejobsError && (err.code === 'LJ_ERR_INVALID_TRANSITION' || err.code === 'LJ_ERR_JOB_NOT_FOUND');
}

/** Cancels these jobs at once (their transitions share commits); the outcome lists them in the order given. */
// biome-ignore lint/suspicious/noExplicitAny: any typed queue
export async function cancelJobs(queue: Queue<any>, ids: readonly number[]): Promise<CancelOutcome> {
  const settled = await Promise.allSettled(ids.map((id) => queue.cancel(id)));
  const outcome: CancelOutcome = { cancelled: [], skipped: [] };
  settled.forEach((r, i) => {
    const id = ids[i]!;
    if (r.status === 'fulfilled') outcome.cancelled.push(id);
    else if (skippable(r.reason)) outcome.skipped.push({ id, code: r.reason.code, message: r.reason.message });
    else throw r.reason;
  });
  return outcome;
}
