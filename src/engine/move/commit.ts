/**
 * Commits one transition through the group-commit batcher, and, when the
 * caller asks, keeps trying while the database is out of reach (or, SQLite,
 * locked by another connection past busyTimeout).
 *
 * A run's outcome asks: its handler has done the work, and if the outcome
 * were dropped because the database restarted, the lease would run out and
 * the job would run a second time. Trying again is safe because the write is
 * a compare-and-set on the job's version (and lease token): it lands at most
 * once, and never once the job has moved on.
 *
 * A try that failed with the connection may still have committed, its answer
 * lost on the way back; the next try then finds the job moved already and
 * says "not committed". So after a failed try, a "no" is checked against the
 * row: the job one version past the request's, in the target state, stamped
 * with this request's time and attempt count, is this request's own write
 * (a request to delete finds the job gone).
 */
import { isDatabaseLocked, isDatabaseUnavailable } from '../../errors.js';
import type { Batcher } from '../../lib/batcher.js';
import type { Clock } from '../../lib/clock.js';
import type { ParentMove, Store, TransitionRequest } from '../../store/store.js';
import { retryDelayMs } from '../core/outage.js';

/** A transition's answer: whether it committed, and the flow parents it moved (Store.transition). */
export interface Committed {
  committed: boolean;
  parentMoves: readonly ParentMove[];
}

export interface CommitDeps {
  transitions: Batcher<TransitionRequest, Committed>;
  store: Pick<Store, 'get'>;
  clock: Clock;
  /** True once the engine is closing: retries stop. */
  closed(): boolean;
  /** A try failed with the database out of reach; the next comes after `delayMs`. */
  onRetry(err: unknown, delayMs: number): void;
  /** A try succeeded after failed ones. */
  onRecovered(): void;
}

/**
 * Commits `request`; with `retry`, tries again (backing off) while the database is unavailable.
 * Resolves whether it committed, and the parents it moved (none known for a try whose answer was lost).
 */
export type Commit = (request: TransitionRequest, retry: boolean) => Promise<Committed>;

/** A wait that does not hold the process open by itself (the queue's own loops do while it runs). */
function pause(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const handle = clock.setTimeout(resolve, ms);
    (handle as { unref?: () => void }).unref?.();
  });
}

export function createCommit(deps: CommitDeps): Commit {
  /** Whether the row shows this request's write: a try whose answer was lost committed after all. */
  const landed = async (request: TransitionRequest): Promise<boolean> => {
    const job = await deps.store.get(request.id);
    if (!job) return request.purge === true;
    return job.version === request.version + 1 && job.state === request.to && job.updatedAt === request.at && job.attempts === request.attempts;
  };

  return async (request, retry) => {
    let failures = 0;
    for (;;) {
      try {
        const answer = await deps.transitions.push(request);
        const out = answer.committed || failures === 0 ? answer : { committed: await landed(request), parentMoves: [] };
        if (failures > 0) deps.onRecovered();
        return out;
      } catch (err) {
        // A SQLite lock held past busyTimeout (an application's long transaction) is waited out
        // too: dropping a finished run's outcome would run the job again once its lease ran out.
        if (!retry || !(isDatabaseUnavailable(err) || isDatabaseLocked(err)) || deps.closed()) throw err;
        const delay = retryDelayMs(++failures);
        deps.onRetry(err, delay);
        await pause(deps.clock, delay);
      }
    }
  };
}
