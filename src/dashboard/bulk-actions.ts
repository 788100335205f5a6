/**
 * Actions on many jobs at once, as the dashboard offers them: cancel a
 * selection, retry the dead jobs a search matches. Each job is its own
 * transition (the machine decides it), so one job that moved meanwhile is
 * skipped, not a reason to undo the rest.
 */
import { JobState } from '../../machines/job.machine.js';
import { LitejobsError } from '../errors.js';
import type { Queue } from '../queue.js';
import { internalsOf } from '../queue-internals.js';
import type { WhereClause } from '../store/where.js';

/** Dead jobs retried per page: small transactions, so the claim loop is never held up long. */
const RETRY_PAGE = 200;

export interface CancelOutcome {
  cancelled: number[];
  skipped: Array<{ id: number; code: string; message: string }>;
}

/** A job that is gone or whose machine refuses the event is skipped; any other error stops the run. */
function skippable(err: unknown): err is LitejobsError {
  return err instanceof LitejobsError && (err.code === 'LJ_ERR_INVALID_TRANSITION' || err.code === 'LJ_ERR_JOB_NOT_FOUND');
}

// biome-ignore lint/suspicious/noExplicitAny: any typed queue
export async function cancelJobs(queue: Queue<any>, ids: readonly number[]): Promise<CancelOutcome> {
  const outcome: CancelOutcome = { cancelled: [], skipped: [] };
  for (const id of ids) {
    try {
      await queue.cancel(id);
      outcome.cancelled.push(id);
    } catch (err) {
      if (!skippable(err)) throw err;
      outcome.skipped.push({ id, code: err.code, message: err.message });
    }
  }
  return outcome;
}

/** Retries every dead job (of one name, if given) whose payload matches; resolves with how many went. */
// biome-ignore lint/suspicious/noExplicitAny: any typed queue
export async function retryDeadMatching(queue: Queue<any>, filter: { name?: string; where: readonly WhereClause[] }): Promise<number> {
  const { store } = internalsOf(queue);
  await store.prepareBrowse();
  let retried = 0;
  let cursor: string | undefined;
  do {
    // Keyset paging stays valid while retried jobs leave `dead`: the cursor is a position, not an offset.
    const page = await store.browse({ state: JobState.dead, name: filter.name, where: filter.where, limit: RETRY_PAGE, cursor });
    for (const job of page.jobs) {
      try {
        await queue.retry(job.id);
        retried++;
      } catch (err) {
        if (!skippable(err)) throw err;
      }
    }
    cursor = page.next ?? undefined;
  } while (cursor !== undefined);
  return retried;
}
