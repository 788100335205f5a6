/**
 * The consuming side of a queue: the worker pool, the claim loop, and the
 * side loops (lease renewal, lease sweeper, WAL checkpoint). Built by
 * `queue.start()`, torn down by `queue.stop()`.
 */
import type { SchedulerLike } from 'rxjs';
import { JobState } from '../machines/job.machine.js';
import type { ApplyEvent, JobRef } from './apply-event.js';
import type { Clock } from './clock.js';
import type { AnyJobDefinition as JobDefinition } from './define-job.js';
import { createExecutor } from './executor.js';
import type { AbortReason } from './job-runner.js';
import type { Logger } from './logger.js';
import { toContext, type MachineRegistry } from './machine-registry.js';
import { createPool } from './pool.js';
import { createScheduler } from './scheduler.js';
import type { ClaimedJob, DueJob, Store } from './store/store.js';

export interface ConsumerDeps {
  store: Store;
  registry: MachineRegistry;
  definitions: ReadonlyMap<string, JobDefinition>;
  apply: ApplyEvent;
  clock: Clock;
  logger: Logger;
  ownerId: string;
  concurrency: number;
  leaseMs: number;
  pollMs: number;
  scheduler?: SchedulerLike;
  /** Called for each job this consumer claimed. */
  onClaimed(job: ClaimedJob): void;
}

export interface Consumer {
  start(): void;
  /** Stops claiming, lets running jobs finish for up to `timeoutMs`, then aborts and releases them. */
  stop(timeoutMs: number): Promise<void>;
  wake(): void;
  noteDue(at: number): void;
  abort(jobId: number, reason: AbortReason): boolean;
  workers(): Array<{ workerId: string; state: string; jobId: number | null; processed: number }>;
}

const SWEEP_BATCH = 100;

function refOf(job: DueJob): JobRef {
  return { ...job, token: job.leaseToken };
}

export function createConsumer(deps: ConsumerDeps): Consumer {
  const { store, registry, clock, logger } = deps;
  const names = [...deps.definitions.keys()];
  const delayedStates = registry.delayedStates;
  const pool = createPool(deps.concurrency, deps.ownerId);
  const executor = createExecutor({ ...deps, leaseMs: deps.leaseMs });
  const timers: NodeJS.Timeout[] = [];
  const onError = (err: unknown) => logger.error({ err }, 'claim loop error; retrying');

  /** Delivers each due job's delayed event (failed → pending when its retry is due). */
  const promoteDue = async (now: number) => {
    for (;;) {
      const due = await store.dueJobs(names, delayedStates, now, SWEEP_BATCH);
      for (const job of due) {
        const next = registry.forJob(job.name, job.retry).due(job.state, toContext(job.attempts, job.lastError, job.ctx));
        if (next) await deps.apply(refOf(job), { type: next.eventType });
      }
      if (due.length < SWEEP_BATCH) return;
    }
  };

  /** Turns expired leases (crashed or stuck workers) into failed attempts, through the machine. */
  const sweep = async () => {
    const expired = await store.expiredLeases(names, clock.now(), SWEEP_BATCH);
    for (const job of expired) {
      executor.abort(job.id, 'lease');
      const error = { name: 'LeaseExpiredError', code: 'LJ_ERR_LEASE_LOST', message: `lease held by ${job.leaseOwner ?? 'unknown'} expired` };
      const r = await deps.apply(refOf(job), { type: 'job.expire', error, random: Math.random() });
      if (r.accepted && r.committed) {
        logger.warn({ jobId: job.id, job: job.name, owner: job.leaseOwner, to: r.to }, 'lease expired');
        if (r.runAt !== undefined) scheduler.noteDue(r.runAt);
      }
    }
  };

  const scheduler = createScheduler({
    clock,
    ...(deps.scheduler ? { scheduler: deps.scheduler } : {}),
    freeSlots: () => pool.free(),
    claim: async (limit) => {
      const jobs = await store.claim({ names, limit, owner: deps.ownerId, leaseMs: deps.leaseMs, now: clock.now() });
      for (const job of jobs) {
        deps.onClaimed(job);
        pool.dispatch(job.id, (workerId) => executor.run(job, workerId));
      }
      return jobs.length;
    },
    promoteDue,
    nextDueAt: () => store.nextDueAt(names, [JobState.pending, ...delayedStates]),
    externalChange: () => store.externalChange(),
    freed$: pool.freed$,
    onError,
    pollMs: deps.pollMs,
    idleMinMs: 250,
    idleMaxMs: 5000,
  });

  const every = (ms: number, fn: () => Promise<void>) => {
    let busy = false;
    timers.push(
      setInterval(() => {
        if (busy) return;
        busy = true;
        fn().catch(onError).finally(() => (busy = false));
      }, ms),
    );
  };

  return {
    start() {
      if (names.length === 0) return; // a producer-only queue runs no workers
      scheduler.start();
      every(Math.max(25, Math.floor(deps.leaseMs / 4)), () => executor.renewLeases());
      every(Math.min(5000, Math.max(50, Math.floor(deps.leaseMs / 4))), sweep);
      every(30_000, () => store.checkpoint());
    },
    async stop(timeoutMs) {
      await scheduler.stop();
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        pool.whenIdle().then(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
      ]);
      clearTimeout(timer);
      if (timedOut) {
        logger.warn({ running: executor.running() }, 'stop timeout: aborting running jobs and putting them back');
        executor.abortAll('shutdown');
        await pool.whenIdle();
      }
      for (const t of timers) clearInterval(t);
      pool.stop();
    },
    wake: () => scheduler.wake(),
    noteDue: (at) => scheduler.noteDue(at),
    abort: (jobId, reason) => executor.abort(jobId, reason),
    workers: () => pool.snapshot(),
  };
}
