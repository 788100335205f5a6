/**
 * The last look before a handler starts a job claimed ahead of time. The job
 * waited in this process's buffer under its lease, and meanwhile another
 * process may have cancelled it, or expired its lease and claimed it again:
 * starting it then would run a handler (and its side effects) for a job that
 * is no longer this process's to run.
 *
 * A job whose lease was confirmed (claimed or renewed) less than
 * `START_CHECK_AFTER_MS` ago starts at once: a cancel landing in that window
 * meets it as a job that has just started (its handler sees the abort at its
 * next lease renewal), and a drain, whose jobs wait a few milliseconds each,
 * pays nothing. One that waited longer is read again first, the jobs
 * starting together in one read; one no longer held under its token is
 * dropped without its handler ever being called.
 */
import { createBatcher } from '../lib/batcher.js';
import type { Clock } from '../lib/clock.js';
import type { LeasedJob, Store } from '../store/store.js';

/** How long a buffered job may wait after its lease was last confirmed and still start unchecked. */
export const START_CHECK_AFTER_MS = 50;

export type StartCheck = (job: LeasedJob) => Promise<boolean> | boolean;

export function createStartCheck(store: Store, clock: Clock, leaseMs: number): StartCheck {
  const reads = createBatcher<{ id: number; token: string }, boolean>((leases) => store.held(leases));
  return (job) => {
    // lockedUntil is the lease's last confirmation (a claim or a renewal) plus the lease.
    if (clock.now() - (job.lockedUntil - leaseMs) < START_CHECK_AFTER_MS) return true;
    return reads.push({ id: job.id, token: job.leaseToken }).catch(
      // The database is out of reach: run as before. The outcome is still a compare-and-set
      // on the lease, and the lease sweep of whoever holds the job settles it.
      () => true,
    );
  };
}
