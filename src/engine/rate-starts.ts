/**
 * Rate-limited jobs in the prefetch buffer, and when they may go there.
 *
 * A rate counts starts: a rate-limited job claimed ahead of a free worker
 * must start soon, or its token would be spent long before the call it
 * stands for. So while no rate limit binds, claims take rate-limited jobs
 * into the buffer with a start deadline (`ClaimRequest.startWithinMs`): the
 * store stamps their tokens at that deadline and marks them (`startBy`), and
 * a job still waiting when it passes is handed back unstarted. The jobs the
 * claim took for workers idle then (`startNow`) are stamped at the claim and
 * have no deadline, as without the buffer. Claims of jobs for idle workers alone
 * (`startNow`) cost a transaction per few jobs: a drain under a limit that
 * is never reached ran at about a third of the plain drain's pace.
 *
 * Once a claim finds a bucket empty, the limit binds: for the longest window
 * of the limits (`perMs`) claims take rate-limited jobs for idle workers only,
 * so no token is held past its job's start and the full rate is reached.
 */
import type { LeasedJob, NameLimits } from '../store/store.js';

/** How long a rate-limited job claimed ahead may wait for a worker: within the start check's 50 ms (start-check.ts). */
export const START_WITHIN_MS = 40;

export interface RateStarts {
  /** What the next claim asks: `{ startWithinMs }` while no limit binds, else nothing. */
  request(now: number): { startWithinMs?: number };
  /** A claim made at `now` came back; `tokensOut`: it found a bucket empty. */
  claimed(now: number, tokensOut: boolean): void;
}

/**
 * Whether a waiting job missed its start deadline (`LeasedJob.startBy`): it
 * must be handed back, not started. A millisecond early: the store stamped
 * the token at `startBy`, and the handler starts just after this check.
 */
export const isLate = (job: LeasedJob, now: number): boolean => job.startBy !== undefined && now >= job.startBy - 1;

export function createRateStarts(limits: ReadonlyMap<string, NameLimits>): RateStarts {
  const perMs = Math.max(0, ...[...limits.values()].map((l) => l.rateLimit?.perMs ?? 0));
  if (perMs === 0) return { request: () => ({}), claimed() {} };
  /** Claims take rate-limited jobs for idle workers only until then. */
  let bindsUntil = Number.NEGATIVE_INFINITY;
  return {
    request: (now) => (now < bindsUntil ? {} : { startWithinMs: START_WITHIN_MS }),
    claimed(now, tokensOut) {
      if (tokensOut) bindsUntil = now + perMs;
    },
  };
}
