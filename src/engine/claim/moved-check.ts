/**
 * Hearing of moves another process made: a cancel (or any move) committed
 * elsewhere reaches this process's running handlers at the store's hint of
 * it (SQLite: the WAL watch; PostgreSQL: the notifications of new work and
 * of finished jobs), not at their next lease renewal. Each hint asks for one
 * read of the running jobs (executor.checkMoved), hints that come meanwhile
 * folded into the next, at most one per MOVED_CHECK_GAP_MS. Jobs claimed
 * ahead of time are read too, less often (their read covers the whole
 * buffer): one moved on leaves the buffer and gives its hold back at once,
 * so another process may run it again; the others count as confirmed for
 * their start (start-check.ts).
 */
import type { Clock } from '../../lib/clock.js';
import type { LeasedJob, Store } from '../../store/store.js';
import type { ClaimBuffer } from './claim-buffer.js';
import type { Executor } from '../run/executor.js';
import type { StartCheck } from './start-check.js';

/** Reads of whether running jobs were moved on elsewhere, at most one per this many ms. */
const MOVED_CHECK_GAP_MS = 25;
/** Reads of the whole buffer (up to ~1,000 leases), at most one per this many ms. */
const BUFFER_CHECK_GAP_MS = 250;

export interface MovedCheckDeps {
  store: Pick<Store, 'held'>;
  clock: Clock;
  run: Pick<Executor, 'checkMoved' | 'running'>;
  buffer: Pick<ClaimBuffer, 'waiting' | 'drop' | 'size'>;
  startCheck: Pick<StartCheck, 'confirm'>;
  /** A buffered job dropped because it moved on: its hold is given back. */
  dropped(job: LeasedJob): void;
  failed(err: unknown): void;
}

/** Returns the function each store hint calls. */
export function createMovedCheck(d: MovedCheckDeps): () => void {
  let checking = false;
  let again = false;
  let lastCheck = Number.NEGATIVE_INFINITY;
  let bufferCheckedAt = Number.NEGATIVE_INFINITY;

  const checkBuffered = async (): Promise<void> => {
    const waiting = d.buffer.waiting();
    const sentAt = d.clock.now();
    if (waiting.length === 0 || sentAt - bufferCheckedAt < BUFFER_CHECK_GAP_MS) return;
    bufferCheckedAt = sentAt;
    const held = await d.store.held(waiting.map((job) => ({ id: job.id, token: job.leaseToken })));
    d.startCheck.confirm(waiting.filter((_, i) => held[i]), sentAt);
    waiting.forEach((job, i) => {
      // Still waiting under the lease that was read (not taken by a worker, nor claimed again meanwhile).
      if (held[i] || !d.buffer.waiting().includes(job)) return;
      const gone = d.buffer.drop(job.id);
      if (gone) d.dropped(gone);
    });
  };

  const check = (): void => {
    if (d.run.running() === 0 && d.buffer.size() === 0) return;
    if (checking) {
      again = true;
      return;
    }
    checking = true;
    const go = () => {
      lastCheck = d.clock.now();
      Promise.all([d.run.checkMoved(), checkBuffered()])
        .catch(d.failed)
        .finally(() => {
          checking = false;
          if (again) {
            again = false;
            check();
          }
        });
    };
    const wait = lastCheck + MOVED_CHECK_GAP_MS - d.clock.now();
    if (wait > 0) d.clock.setTimeout(go, wait);
    else go();
  };
  return check;
}
