/**
 * Runs claimed jobs on worker slots: builds the handler's context, keeps the
 * lease alive while the handler runs, and hands the outcome to the machine
 * (completed, failed → retry/dead, or released back to pending on shutdown).
 */
import type { HandlerContext, AnyJobDefinition as JobDefinition } from './define-job.js';
import type { ApplyEvent } from './apply-event.js';
import type { Clock } from './clock.js';
import { LeaseLostError, ValidationError } from './errors.js';
import { runHandler, type AbortReason } from './job-runner.js';
import type { Logger } from './logger.js';
import type { ClaimedJob, Store } from './store/store.js';

interface InFlight {
  job: ClaimedJob;
  controller: AbortController;
  lockedUntil: number;
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
  store: Store;
  clock: Clock;
  leaseMs: number;
  logger: Logger;
}

export function createExecutor(deps: ExecutorDeps): Executor {
  const inFlight = new Map<number, InFlight>();
  const { clock, leaseMs, store } = deps;

  const extend = async (entry: InFlight): Promise<boolean> => {
    const until = clock.now() + leaseMs;
    const ok = await store.heartbeat(entry.job.id, entry.job.token, until);
    if (ok) entry.lockedUntil = until;
    else if (!entry.controller.signal.aborted) entry.controller.abort('lease' satisfies AbortReason);
    return ok;
  };

  const handlerContext = (entry: InFlight, workerId: string): HandlerContext => {
    const { job } = entry;
    let log: Logger | undefined;
    return {
      jobId: job.id,
      name: job.name,
      attempt: job.attempts,
      signal: entry.controller.signal,
      async heartbeat() {
        if (!(await extend(entry))) throw new LeaseLostError(job.id);
      },
      async progress(value: number) {
        if (typeof value !== 'number' || !Number.isFinite(value)) throw new ValidationError('progress must be a finite number');
        if (!(await store.progress(job.id, job.token, value))) throw new LeaseLostError(job.id);
      },
      get log() {
        // Built on first use: most handlers never log, and a child logger is not free.
        return (log ??= deps.logger.child({ job: job.name, jobId: job.id, attempt: job.attempts, workerId }));
      },
    };
  };

  return {
    async run(job, workerId) {
      const def = deps.definitions.get(job.name);
      const entry: InFlight = { job, controller: new AbortController(), lockedUntil: job.lockedUntil };
      inFlight.set(job.id, entry);
      const ref = {
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
          ? await runHandler(def.handler, job.payload, handlerContext(entry, workerId), entry.controller, job.timeout ?? def.timeout ?? null)
          : ({ kind: 'aborted', reason: 'shutdown' } as const); // never claimed: names come from definitions
        inFlight.delete(job.id);
        if (outcome.kind === 'completed') {
          const extra: { workerId: string; result?: string } = { workerId };
          if (outcome.result !== undefined) extra.result = outcome.result;
          const r = await deps.apply(ref, { type: 'job.complete' }, extra);
          if (r.accepted && !r.committed) deps.logger.warn({ jobId: job.id, workerId }, 'job completed after its lease was lost; result dropped');
        } else if (outcome.kind === 'failed') {
          await deps.apply(ref, { type: 'job.fail', error: outcome.error, random: Math.random() }, { workerId });
        } else if (outcome.reason === 'shutdown') {
          // Put it back without spending an attempt.
          await deps.apply(ref, { type: 'job.release' }, { workerId });
        }
        // cancel / lease lost: the job already left processing; there is nothing to write.
      } catch (err) {
        inFlight.delete(job.id);
        // Settling failed (the database is unreachable): the lease will expire and the sweeper retries the job.
        deps.logger.error({ err, jobId: job.id, workerId }, 'could not record the outcome of a job');
      }
    },
    abort(jobId, reason) {
      const entry = inFlight.get(jobId);
      if (!entry) return false;
      entry.controller.abort(reason);
      return true;
    },
    abortAll(reason) {
      for (const entry of inFlight.values()) entry.controller.abort(reason);
    },
    async renewLeases() {
      const now = clock.now();
      for (const entry of [...inFlight.values()]) {
        if (entry.lockedUntil - now < leaseMs / 2 && !entry.controller.signal.aborted) await extend(entry);
      }
    },
    running: () => inFlight.size,
  };
}
