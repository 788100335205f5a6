/**
 * The consuming side of a queue: the worker pool, the claim loop, and the
 * side loops (lease renewal, lease sweeper, retention). Built by
 * `queue.start()`, torn down by `queue.stop()`.
 */
import { merge, Subject, type SchedulerLike } from 'rxjs';
import { JobState } from '../../machines/job.machine.js';
import type { ApplyEvent, JobRef } from './apply-event.js';
import type { Clock } from '../lib/clock.js';
import type { AnyJobDefinition as JobDefinition } from './job-definition.js';
import { createExecutor, extendLease } from './executor.js';
import type { AbortReason } from './job-runner.js';
import type { Logger } from '../lib/logger.js';
import { toContext, type MachineRegistry } from './machine-registry.js';
import { createPool } from './pool.js';
import { deletesByAge } from './options.js';
import { createScheduler } from './scheduler.js';
import type { ClaimedJob, DueJob, Store } from '../store/store.js';

export interface ConsumerDeps {
  store: Store;
  registry: MachineRegistry;
  definitions: ReadonlyMap<string, JobDefinition>;
  apply: ApplyEvent;
  /** Outcomes waiting for their commit. */
  settleBacklog(): number;
  clock: Clock;
  logger: Logger;
  ownerId: string;
  concurrency: number;
  /** Jobs claimed ahead of idle workers (same lease), so claims come in batches. */
  prefetch: number;
  /** Retention per finished state, ms; the loop deletes what is older. */
  retention: Readonly<Record<string, number | undefined>>;
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
/** Rows deleted per retention transaction: small, so the claim loop is never held up long. */
const PURGE_BATCH = 500;
const RETENTION_EVERY_MS = 5000;

function refOf(job: DueJob): JobRef {
  return { ...job, token: job.leaseToken };
}

export function createConsumer(deps: ConsumerDeps): Consumer {
  const { store, registry, clock, logger } = deps;
  const names = [...deps.definitions.keys()];
  const delayedStates = registry.delayedStates;
  const executor = createExecutor({ ...deps, maxSettleBacklog: 4 * (deps.concurrency + deps.prefetch) });
  // Claimed jobs waiting for a worker, in claim order. Bounded: the scheduler
  // claims at most `capacity` minus what is running or waiting.
  const waiting: ClaimedJob[] = [];
  const capacity = deps.concurrency + deps.prefetch;
  // Refill when a quarter of the prefetch is left: each claim then takes about
  // three quarters of it in one transaction (a claim costs a commit, so small
  // top-ups of a few jobs each would cost more than the jobs they bring).
  const lowWater = Math.floor(deps.prefetch / 4);
  const hungry$ = new Subject<void>();
  const takeNext = (): ClaimedJob | undefined => {
    const job = waiting.shift();
    if (job && waiting.length === lowWater) hungry$.next(); // refill before the workers run dry
    return job;
  };
  const pool = createPool(deps.concurrency, deps.ownerId, takeNext, (job, workerId) => executor.run(job, workerId));
  const dropWaiting = (jobId: number): boolean => {
    const i = waiting.findIndex((j) => j.id === jobId);
    if (i >= 0) waiting.splice(i, 1);
    return i >= 0;
  };
  const abort = (jobId: number, reason: AbortReason): boolean => dropWaiting(jobId) || executor.abort(jobId, reason);
  /** Renews the leases of claimed jobs that have not started yet; drops those whose lease was lost. */
  const renewWaiting = async () => {
    const now = clock.now();
    for (const job of [...waiting]) {
      if (job.lockedUntil - now < deps.leaseMs / 2 && !(await extendLease(store, job, now + deps.leaseMs))) dropWaiting(job.id);
    }
  };
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
      abort(job.id, 'lease');
      const error = { name: 'LeaseExpiredError', code: 'LJ_ERR_LEASE_LOST', message: `lease held by ${job.leaseOwner ?? 'unknown'} expired` };
      const r = await deps.apply(refOf(job), { type: 'job.expire', error, random: Math.random() });
      if (r.accepted && r.committed) {
        logger.warn({ jobId: job.id, job: job.name, owner: job.leaseOwner, to: r.to }, 'lease expired');
        if (r.runAt !== undefined) scheduler.noteDue(r.runAt);
      }
    }
  };

  /** Deletes finished jobs older than their retention, in small transactions, yielding between them. */
  const purgeOld = async () => {
    for (const [state, keepMs] of Object.entries(deps.retention)) {
      if (keepMs === undefined || keepMs === 0) continue;
      while ((await store.purgeFinished(state, clock.now() - keepMs, PURGE_BATCH)) === PURGE_BATCH) {
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  };

  const scheduler = createScheduler({
    clock,
    ...(deps.scheduler ? { scheduler: deps.scheduler } : {}),
    // Above the low-water mark the buffer is full enough: `hungry$` asks again.
    freeSlots: () => (waiting.length > lowWater ? 0 : capacity - pool.busy() - waiting.length),
    claim: async (limit) => {
      const jobs = await store.claim({ names, limit, owner: deps.ownerId, leaseMs: deps.leaseMs, now: clock.now() });
      for (const job of jobs) {
        deps.onClaimed(job);
        waiting.push(job);
      }
      pool.kick();
      return jobs.length;
    },
    promoteDue,
    nextDueAt: () => store.nextDueAt(names, [JobState.pending, ...delayedStates]),
    externalChange: () => store.externalChange(),
    freed$: merge(pool.freed$, hungry$),
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
      every(Math.max(25, Math.floor(deps.leaseMs / 4)), async () => {
        await executor.renewLeases();
        await renewWaiting();
      });
      every(Math.min(5000, Math.max(50, Math.floor(deps.leaseMs / 4))), sweep);
      if (deletesByAge(deps.retention)) {
        every(RETENTION_EVERY_MS, purgeOld);
        purgeOld().catch(onError);
      }
    },
    async stop(timeoutMs) {
      await scheduler.stop();
      // Claimed but never started: straight back to pending, no attempt spent.
      const unstarted = waiting.splice(0);
      await Promise.all(
        unstarted.map((job) =>
          deps.apply({ ...job, state: JobState.processing, token: job.token }, { type: 'job.release' }).catch(onError),
        ),
      );
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
    abort,
    workers: () => pool.snapshot(),
  };
}
