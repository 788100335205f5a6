/**
 * Rate-limited jobs: their start deadline, and whether claims may take them
 * into the prefetch buffer.
 *
 * A rate counts starts, and a job starts after its claim. So every
 * rate-limited job a claim takes gets a start deadline (`startBy`, `startWithinMs`
 * after the claim was sent) and is handed back unstarted if it misses it;
 * its token is stamped at that deadline, on the database's clock (the
 * claim's `rate.stampAt`), so it comes back a full window after its job's
 * start at the earliest, however late the claim's answer came
 * (store/claim-limits.ts).
 *
 * While no rate limit binds, claims take rate-limited jobs into the buffer
 * too (`ahead`): the ones no idle worker takes wait there, and start by the
 * same deadline or go back. Claims of jobs for idle workers alone cost a
 * transaction per few jobs: a drain under a limit that is never reached ran
 * at about a third of the plain drain's pace.
 *
 * Once a claim finds a bucket empty, the limit binds: for the longest window
 * of the limits (`perMs`) claims take rate-limited jobs for idle workers only,
 * so no token is held in a buffer and the full rate is reached.
 */
import type { ClaimRequest, LeasedJob, NameLimits } from '../../store/store.js';
import type { SharedTime } from '../core/shared-time.js';

/** How long a rate-limited job may take from its claim's sending to its start, at most: within the start check's 50 ms (start-check.ts). */
export const START_WITHIN_MS = 40;
/** … and at least: a claim's answer and a worker's dispatch fit in it. */
const MIN_START_WITHIN_MS = 5;

/**
 * The start deadline of the rate-limited jobs of these limits: START_WITHIN_MS,
 * or a tenth of the shortest window when that is less. A token comes back a
 * window after its job's deadline, so the deadline slows a binding limit by
 * that much a window: a tenth at most (10 per 100 ms: 10 per 110 ms).
 */
export function startWithinMs(limits: ReadonlyMap<string, NameLimits>): number {
  const shortest = Math.min(...[...limits.values()].map((l) => l.rateLimit?.perMs ?? Number.POSITIVE_INFINITY));
  return Math.max(MIN_START_WITHIN_MS, Math.min(START_WITHIN_MS, Math.floor(shortest / 10)));
}

export interface RateStarts {
  /** Whether the next claim may take rate-limited jobs past the idle workers, into the buffer (no limit binds). */
  ahead(now: number): boolean;
  /** A claim made at `now` came back; `tokensOut`: it found a bucket empty. */
  claimed(now: number, tokensOut: boolean): void;
}

/**
 * Whether a job missed its start deadline (`LeasedJob.startBy`): it must be
 * handed back, not started. A millisecond early: the token was stamped at
 * `startBy`, and the handler starts just after this check.
 */
export const isLate = (job: LeasedJob, now: number): boolean => job.startBy !== undefined && now >= job.startBy - 1;

/**
 * What a claim asks about limits and pauses: the database's time for tokens
 * and pauses (any name's), and for rate-limited jobs a start deadline
 * `startWithin` after `now`, their tokens stamped there.
 */
export async function claimTerms(
  time: Pick<SharedTime, 'now'>,
  limits: ReadonlyMap<string, NameLimits>,
  o: { startWithin: number; ahead: boolean; startNow: number },
): Promise<Pick<ClaimRequest, 'rate' | 'limits' | 'startNow' | 'startWithinMs'>> {
  const t = await time.now();
  const rate = { now: t.lo, stampAt: t.hi + o.startWithin, ahead: o.ahead };
  return limits.size > 0 ? { rate, limits, startNow: o.startNow, startWithinMs: o.startWithin } : { rate };
}

export function createRateStarts(limits: ReadonlyMap<string, NameLimits>): RateStarts {
  const perMs = Math.max(0, ...[...limits.values()].map((l) => l.rateLimit?.perMs ?? 0));
  if (perMs === 0) return { ahead: () => true, claimed() {} };
  /** Claims take rate-limited jobs for idle workers only until then. */
  let bindsUntil = Number.NEGATIVE_INFINITY;
  return {
    ahead: (now) => now >= bindsUntil,
    claimed(now, tokensOut) {
      if (tokensOut) bindsUntil = now + perMs;
    },
  };
}
