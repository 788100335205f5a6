/**
 * Rate-limited jobs in the prefetch buffer, and when they may go there.
 *
 * A rate counts starts: a rate-limited job claimed ahead of a free worker
 * must start soon, or its token would be spent long before the call it
 * stands for. So while no rate limit binds, claims take rate-limited jobs
 * into the buffer with a start deadline (`ClaimRequest.startWithinMs`): the
 * store stamps their tokens at that deadline, and a job still waiting when it
 * passes is handed back unstarted. Claims of jobs for idle workers alone
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
  /** A claim made at `now` with `request(now)`'s answer came back. */
  claimed(jobs: readonly LeasedJob[], now: number, asked: { startWithinMs?: number }, tokensOut: boolean): void;
  /** Whether a waiting job missed its start deadline (it must be handed back, not started). */
  late(job: LeasedJob, now: number): boolean;
  /** The job left the buffer. */
  forget(job: LeasedJob): void;
}

export function createRateStarts(limits: ReadonlyMap<string, NameLimits>): RateStarts {
  const perMs = Math.max(0, ...[...limits.values()].map((l) => l.rateLimit?.perMs ?? 0));
  if (perMs === 0) return { request: () => ({}), claimed() {}, late: () => false, forget() {} };
  /** Claims take rate-limited jobs for idle workers only until then. */
  let bindsUntil = Number.NEGATIVE_INFINITY;
  const deadlines = new Map<number, number>();
  return {
    request: (now) => (now < bindsUntil ? {} : { startWithinMs: START_WITHIN_MS }),
    claimed(jobs, now, asked, tokensOut) {
      if (tokensOut) bindsUntil = now + perMs;
      if (asked.startWithinMs === undefined) {
        for (const job of jobs) deadlines.delete(job.id);
        return;
      }
      // A millisecond early: the store stamps the tokens at now + startWithinMs, and the handler starts just after this check.
      const deadline = now + asked.startWithinMs - 1;
      for (const job of jobs) if (limits.get(job.name)?.rateLimit) deadlines.set(job.id, deadline);
    },
    late(job, now) {
      const deadline = deadlines.get(job.id);
      return deadline !== undefined && now >= deadline;
    },
    forget(job) {
      deadlines.delete(job.id);
    },
  };
}
