/**
 * The one check before a handler starts a claimed job: whether it may start
 * now (`start`), was moved on elsewhere meanwhile (`moved`: dropped, never
 * started), or is past its rate-limit start deadline (`late`: handed back
 * unstarted, rate-starts.ts). Nothing else decides a start: the buffer only
 * holds jobs, the pool only hands them to workers (a thread job's deadline
 * goes with it to its thread as `notAfter`, the same deadline read there).
 *
 * A claimed job waited in this process's buffer under its lease, and meanwhile another
 * process may have cancelled it, or expired its lease and claimed it again:
 * starting it then would run a handler (and its side effects) for a job that
 * is no longer this process's to run.
 *
 * A job whose lease was confirmed less than `START_CHECK_AFTER_MS` ago starts
 * at once: a cancel landing in that window meets it as a job that has just
 * started (its handler sees the abort at its next lease renewal), and a
 * drain, whose jobs wait a few milliseconds each, pays nothing. One that
 * waited longer is read again first, the jobs starting together in one read;
 * one no longer held under its token is dropped without its handler ever
 * being called.
 *
 * A lease is confirmed by its claim (as of its reply: the jobs are held from
 * the claim's commit, at the end of its statement, however long the statement
 * ran), by a renewal, and by `ahead()`: once the
 * oldest job of the buffer comes within two reads' time of the window's end,
 * one read confirms every job of the buffer that old, before a worker needs
 * them. Where a claim costs a round trip of a few milliseconds (hosts away
 * from their PostgreSQL), the buffer must hold more than 50 ms of work to
 * keep the workers fed; without this every job past the window would hold
 * its worker for a read. The lead follows the reads' time: a read that came
 * back after the jobs it confirms had passed the window would leave each of
 * them to a read of its own (three hosts through 1 ms of added round trip:
 * reads of 10–25 ms on a busy machine), and a read sent early confirms jobs
 * that would have started unread anyway (a drain beside its database: at
 * half the window, 60 reads of ~900 leases for 50,000 jobs; at 40 ms, 2–7).
 */
import { createBatcher } from '../../lib/batcher.js';
import type { Clock } from '../../lib/clock.js';
import type { LeasedJob, Store } from '../../store/store.js';
import { isLate } from './rate-starts.js';

/** How long a buffered job may wait after its lease was last confirmed and still start unchecked. */
export const START_CHECK_AFTER_MS = 50;
/** How long before the window's end a buffered job's lease is confirmed ahead, at least and at most. */
const MIN_LEAD_MS = 10;
const MAX_LEAD_MS = START_CHECK_AFTER_MS / 2;
/** A confirmation read's time, guessed until the first is measured. */
const FIRST_READ_MS = 5;
/** Leases read by one confirmation at most. */
const CONFIRM_MAX = 2000;

/** What the start check says of a claimed job: start it, drop it (moved on elsewhere), or hand it back (past its start deadline). */
export type StartVerdict = 'start' | 'moved' | 'late';

export interface StartCheck {
  /** Whether `job` may start: at once when its lease was confirmed lately, else after a read; never when late. */
  (job: LeasedJob): Promise<StartVerdict> | StartVerdict;
  /**
   * Confirms ahead of time the leases of `buffer`'s jobs (oldest first)
   * that are near the window's end, one read at a time; `lost` is called
   * for each job no longer held under its token. Cheap when there is nothing
   * to do: it looks at the first job only.
   */
  ahead(buffer: readonly LeasedJob[], lost: (job: LeasedJob) => void): void;
  /** Records that `jobs` were read held under their leases by a read sent at `at` (a store hint's read: consumer.ts). */
  confirm(jobs: readonly LeasedJob[], at: number): void;
}

export function createStartCheck(store: Pick<Store, 'held'>, clock: Clock, leaseMs: number): StartCheck {
  const reads = createBatcher<{ id: number; token: string }, boolean>((leases) => store.held(leases));
  /** Confirmations newer than the job's claim or renewal (which lockedUntil records). */
  const confirmed = new WeakMap<LeasedJob, number>();
  let confirming = false;
  /** Confirmation reads' time, smoothed. */
  let readMs = FIRST_READ_MS;
  /** Jobs confirmed longer ago than this are confirmed again ahead of their start. */
  const confirmAfter = () => START_CHECK_AFTER_MS - Math.min(MAX_LEAD_MS, Math.max(MIN_LEAD_MS, 2 * readMs));
  // lockedUntil is the lease's last claim or renewal plus the lease.
  const confirmedAt = (job: LeasedJob) => Math.max(job.lockedUntil - leaseMs, confirmed.get(job) ?? Number.NEGATIVE_INFINITY);

  // Late is looked at before the read and again after it: a read that came back past the deadline
  // leaves a token that no longer covers a start.
  const afterRead = (job: LeasedJob, held: boolean): StartVerdict => (!held ? 'moved' : isLate(job, clock.now()) ? 'late' : 'start');
  const check = (job: LeasedJob): Promise<StartVerdict> | StartVerdict => {
    if (isLate(job, clock.now())) return 'late';
    if (clock.now() - confirmedAt(job) < START_CHECK_AFTER_MS) return 'start';
    return reads.push({ id: job.id, token: job.leaseToken }).then(
      (held) => afterRead(job, held),
      // The database is out of reach: run as before. The outcome is still a compare-and-set
      // on the lease, and the lease sweep of whoever holds the job settles it.
      () => afterRead(job, true),
    );
  };

  const ahead: StartCheck['ahead'] = (buffer, lost) => {
    if (confirming || buffer.length === 0) return;
    const sentAt = clock.now();
    const after = confirmAfter();
    if (sentAt - confirmedAt(buffer[0]!) < after) return;
    const jobs = buffer.filter((job) => sentAt - confirmedAt(job) >= after).slice(0, CONFIRM_MAX);
    confirming = true;
    store.held(jobs.map((job) => ({ id: job.id, token: job.leaseToken }))).then(
      (held) => {
        confirming = false;
        readMs = 0.7 * readMs + 0.3 * (clock.now() - sentAt);
        // Held when the read ran, which was after it was sent: confirmed as of the send.
        for (let i = 0; i < jobs.length; i++) {
          if (held[i]) confirmed.set(jobs[i]!, sentAt);
          else lost(jobs[i]!);
        }
      },
      () => {
        // Not confirmed: a job that gets old meanwhile is read at its start, as before.
        confirming = false;
      },
    );
  };

  const confirm: StartCheck['confirm'] = (jobs, at) => {
    for (const job of jobs) if ((confirmed.get(job) ?? Number.NEGATIVE_INFINITY) < at) confirmed.set(job, at);
  };

  return Object.assign(check, { ahead, confirm });
}
