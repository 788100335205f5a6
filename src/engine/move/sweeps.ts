/**
 * The consumer's two sweeps over jobs no worker holds a run of, as functions
 * of the engine alone (the claim loop calls them; so do the model checks in
 * test/property/, on several connections at once):
 *
 * - promoteDue: a delayed state whose time has come (failed → pending when
 *   the retry is due, sleeping → pending) gets its due event;
 * - expireLeases: a processing job whose lease ran out (a crashed or stuck
 *   worker) gets `job.expire`, a failed attempt.
 *
 * Each reads a batch, then moves each job through the machine. Another
 * process may move the same job between the read and the write: each write
 * is a compare-and-set on the version read (apply-event.ts), and a miss is
 * the answer (the job moved on; nothing decided on the old read lands).
 */
import { JobEventType } from '../../../machines/job.machine.js';
import type { JobRecord } from '../../store/store.js';
import type { WorkerEngine } from '../core/engine.js';
import { toContext } from '../core/machine-registry.js';
import { machineEvent } from '../core/moves.js';
import { LeaseExpiredError } from '../../errors.js';

export const SWEEP_BATCH = 100;

/** Delivers each due job's delayed event; returns how many moved. */
export async function promoteDue(engine: WorkerEngine, names: readonly string[], now: number): Promise<number> {
  const { worker: store, registry } = engine;
  let moved = 0;
  for (;;) {
    const due = await store.dueJobs(names, registry.delayedStates, now, SWEEP_BATCH);
    // All at once: the engine's batcher makes them one commit (one by one, a burst of
    // retries held the claim loop's pass for a round trip per job).
    const results = await Promise.all(
      due.map((job) => {
        const next = registry.forJob(job.name, job.retry).due(job.state, toContext(job.attempts, job.lastError, job.ctx));
        return next ? engine.apply(job, machineEvent({ type: next.eventType })) : null;
      }),
    );
    let movedNow = 0;
    for (const r of results) if (r?.accepted && r.committed) movedNow++;
    moved += movedNow;
    // A full batch that moved nothing would be read again as it is, for ever (a delayed state whose
    // due edges are all guarded off, or another process moving each job first): the next pass looks again.
    if (due.length < SWEEP_BATCH || movedNow === 0) return moved;
  }
}

export interface ExpiryHooks {
  /** This process still runs the job under that lease (its renewal came late): it keeps the job. */
  holds(job: JobRecord): boolean;
  /** Renews the leases of this process's runs. */
  renew(): Promise<void>;
  /** Stops this process's run or buffered copy of the job, if any (once its expiry has committed). */
  abort(jobId: number): void;
}

/** Gives back the holds whose run died holding them (run-holds.ts), keys and all. */
export async function releaseExpiredHolds(engine: WorkerEngine, now: number, hooks: Pick<ExpiryHooks, 'renew'> & { runs(jobId: number): boolean }): Promise<void> {
  for (const { id, token } of await engine.worker.expiredHolds(now, SWEEP_BATCH)) {
    // A run of this process that is still alive keeps its hold: its renewal came late.
    if (hooks.runs(id)) await hooks.renew();
    else await engine.releaseHold(id, token);
  }
}

/** Turns expired leases into failed attempts, through the machine; returns the jobs expired. */
export async function expireLeases(engine: WorkerEngine, names: readonly string[], now: number, hooks: ExpiryHooks): Promise<JobRecord[]> {
  const expired: JobRecord[] = [];
  for (const job of await engine.worker.expiredLeases(names, now, SWEEP_BATCH)) {
    if (hooks.holds(job)) {
      await hooks.renew();
      continue;
    }
    // Name, code and message only: the sweep's own stack says nothing about the run that stopped renewing.
    const { name, code, message } = new LeaseExpiredError(job.leaseOwner);
    const error = { name, code, message };
    // Lands only while the lease has still run out: a renewal since this read keeps the job with its run.
    const r = await engine.apply(job, { type: JobEventType.expire, error, random: Math.random() }, { expiredBy: now });
    if (r.accepted && r.committed) {
      // Only now: a copy this process still buffered, renewed since the read, keeps its place otherwise.
      hooks.abort(job.id);
      engine.logger.warn({ jobId: job.id, job: job.name, owner: job.leaseOwner, to: r.to }, 'lease expired');
      expired.push(job);
    }
  }
  return expired;
}

/**
 * Wakes jobs left waiting for a message their mailbox holds: the executor
 * looks at the mailbox once its park committed, and a process that died (or
 * a database error) between the two left the job parked with its message
 * unseen. Each sweep finds such jobs, a batch at a time, and wakes them.
 */
export async function wakeUnseenMessages(engine: WorkerEngine, names: readonly string[]): Promise<number> {
  let woke = 0;
  for (const { id, topic } of await engine.worker.unseenMessages(names, SWEEP_BATCH)) if (await engine.wakeWaiting(id, topic)) woke++;
  return woke;
}
