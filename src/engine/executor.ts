/**
 * Runs claimed jobs on worker slots: builds the handler's context, keeps the
 * lease alive while the handler runs, and hands the outcome to the machine
 * (completed, failed → retry/dead, or released back to pending on shutdown).
 */
import type { AnyJobDefinition as JobDefinition } from './job-definition.js';
import type { ApplyEvent, JobRef } from './apply-event.js';
import type { Clock } from '../lib/clock.js';
import { Abortable } from '../lib/abortable.js';
import { JobContext, type ContextHost } from './handler-context.js';
import { runHandler, type AbortReason, type Outcome } from './job-runner.js';
import type { Logger } from '../lib/logger.js';
import type { ClaimedJob, Store } from '../store/store.js';

interface InFlight {
  job: ClaimedJob;
  abortable: Abortable;
}

export interface Executor {
  /** Runs one claimed job to its next settled state. Never rejects. */
  run(job: ClaimedJob, workerId: string): Promise<void>;
  /** Aborts a running job's handler; false if this process is not running it. */
  abort(jobId: number, reason: AbortReason): boolean;
  abortAll(reason: AbortReason): void;
  /** Extends the leases that are past half their time; aborts jobs whose lease was lost. */
  renewLeases(): Promise<void>;
  running(): number;
}

export interface ExecutorDeps {
  definitions: ReadonlyMap<string, JobDefinition>;
  apply: ApplyEvent;
  /** Outcomes written but not yet committed; past `maxSettleBacklog` a worker waits for its own. */
  settleBacklog(): number;
  maxSettleBacklog: number;
  store: Store;
  clock: Clock;
  leaseMs: number;
  logger: Logger;
}

/** Extends a claimed job's lease; false when the lease was lost (expired and taken, cancelled). */
export async function extendLease(store: Store, job: ClaimedJob, until: number): Promise<boolean> {
  const ok = await store.heartbeat(job.id, job.token, until);
  if (ok) job.lockedUntil = until;
  return ok;
}

export function createExecutor(deps: ExecutorDeps): Executor {
  const inFlight = new Map<number, InFlight>();
  const { clock, leaseMs, store } = deps;

  const extend = async (job: ClaimedJob, abortable: Abortable): Promise<boolean> => {
    const ok = await extendLease(store, job, clock.now() + leaseMs);
    if (!ok) abortable.abort('lease' satisfies AbortReason);
    return ok;
  };
  const host: ContextHost = {
    extend,
    progress: (job, value) => store.progress(job.id, job.token, value),
    logger: deps.logger,
  };

  /** Hands a handler's outcome to the machine; never rejects (a failed write leaves the lease to expire). */
  const settle = async (ref: JobRef, outcome: Outcome, workerId: string): Promise<void> => {
    try {
      if (outcome.kind === 'completed') {
        const extra: { workerId: string; result?: string } = { workerId };
        if (outcome.result !== undefined) extra.result = outcome.result;
        const r = await deps.apply(ref, { type: 'job.complete' }, extra);
        if (r.accepted && !r.committed) deps.logger.warn({ jobId: ref.id, workerId }, 'job completed after its lease was lost; result dropped');
      } else if (outcome.kind === 'failed') {
        await deps.apply(ref, { type: 'job.fail', error: outcome.error, random: Math.random() }, { workerId });
      } else if (outcome.reason === 'shutdown') {
        // Put it back without spending an attempt.
        await deps.apply(ref, { type: 'job.release' }, { workerId });
      }
      // cancel / lease lost: the job already left processing; there is nothing to write.
    } catch (err) {
      // The database is unreachable: the lease will expire and the sweeper retries the job.
      deps.logger.error({ err, jobId: ref.id, workerId }, 'could not record the outcome of a job');
    }
  };

  return {
    async run(job, workerId) {
      const def = deps.definitions.get(job.name);
      const entry: InFlight = { job, abortable: new Abortable() };
      inFlight.set(job.id, entry);
      const ref: JobRef = {
        id: job.id,
        name: job.name,
        state: 'processing',
        attempts: job.attempts,
        lastError: job.lastError,
        ctx: job.ctx,
        retry: job.retry,
        token: job.token,
      };
      try {
        const outcome = def
          ? await runHandler(def.handler, job.payload, new JobContext(job, entry.abortable, workerId, host), entry.abortable, job.timeout ?? def.timeout ?? null)
          : ({ kind: 'aborted', reason: 'shutdown' } as const); // never claimed: names come from definitions
        inFlight.delete(job.id);
        // The worker moves on while the outcome waits for its group commit; nothing
        // is announced before that commit. Past the backlog bound it waits.
        const settled = settle(ref, outcome, workerId);
        if (deps.settleBacklog() > deps.maxSettleBacklog) await settled;
        else settled.catch(() => undefined);
      } catch (err) {
        inFlight.delete(job.id);
        deps.logger.error({ err, jobId: job.id, workerId }, 'could not run a job');
      }
    },
    abort(jobId, reason) {
      const entry = inFlight.get(jobId);
      if (!entry) return false;
      entry.abortable.abort(reason);
      return true;
    },
    abortAll(reason) {
      for (const entry of inFlight.values()) entry.abortable.abort(reason);
    },
    async renewLeases() {
      const now = clock.now();
      for (const entry of [...inFlight.values()]) {
        if (entry.job.lockedUntil - now < leaseMs / 2 && !entry.abortable.aborted) await extend(entry.job, entry.abortable);
      }
    },
    running: () => inFlight.size,
  };
}
