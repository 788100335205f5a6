/**
 * The consuming side of a queue: the worker pool, the claim loop, and the
 * side loops (lease renewal, lease sweeper, retention). Built by
 * `queue.start()`, torn down by `queue.stop()`. It receives the engine and
 * works through it: claims and outcomes go down, readiness comes from
 * `engine.ready$`.
 */
import { merge, Observable, Subject, type Subscription } from 'rxjs';
import { JobEventType, JobState } from '../../machines/job.machine.js';
import { every, type TimerHandle } from '../lib/clock.js';
import { withoutPaused } from '../store/paused.js';
import type { JobRecord, LeasedJob } from '../store/store.js';
import type { Engine } from './engine.js';
import { createExecutor, extendLease } from './executor.js';
import type { AbortReason } from './job-runner.js';
import { deletesByAge } from './options.js';
import { createPool, type WorkerInfo } from './pool.js';
import { createProcessRegistry, heartbeatEvery } from './process-registry.js';
import { createPrefetchSize } from './prefetch-size.js';
import { createRateStarts, isLate } from './rate-starts.js';
import { createStartCheck } from './start-check.js';
import { createScheduler } from './scheduler.js';
import { createThreadPool } from './threads/thread-pool.js';
import { expireLeases, promoteDue } from './sweeps.js';
import { createPauseReads, createRatePauses, takePaused } from './rate-pauses.js';

export interface ConsumerOptions {
  ownerId: string;
  concurrency: number;
  /** Jobs claimed ahead of idle workers (same lease), so claims come in batches; absent: sized as the queue runs (prefetch-size.ts). */
  prefetch: number | undefined;
  leaseMs: number;
  pollMs: number;
  stuckAfterMs: number;
  /** Size of the worker-thread pool for `isolation: 'thread'` jobs. */
  threads: number;
}

export interface Consumer {
  start(): void;
  /**
   * Stops claiming, lets running jobs finish for up to `timeoutMs`, then tells
   * them to stop and waits up to `stuckAfter` more for their handlers.
   */
  stop(timeoutMs: number): Promise<void>;
  abort(jobId: number, reason: AbortReason): boolean;
  workers(): WorkerInfo[];
  /** Runs told to stop that have not returned after `stuckAfter`. */
  stuck(): number;
}

/** Rows deleted per retention transaction: small, so the claim loop is never held up long. */
const PURGE_BATCH = 500;
const RETENTION_EVERY_MS = 5000;
/** How long a claim loop waits at most for a job held back by a running one to be free (see heldBackUntil). */
const HELD_BACK_RECHECK_MS = 100;

export function createConsumer(engine: Engine, o: ConsumerOptions): Consumer {
  const { store, registry, clock, logger } = engine;
  const names = [...engine.definitions.keys()];
  const delayedStates = registry.delayedStates;
  const { limits } = engine;
  /** Set when the last claim left due jobs behind for a limit: see nextDueAt. */
  let heldBack: { until: number | null } | undefined;
  const needsThreads = [...engine.definitions.values()].some((def) => def.isolation === 'thread');
  const threads = needsThreads ? createThreadPool({ size: o.threads }) : undefined;
  // Claimed jobs waiting for a worker, in claim order. Bounded: the scheduler
  // claims at most `capacity` minus what is running or waiting.
  const waiting: LeasedJob[] = [];
  const stillOurs = (job: LeasedJob) => (fresh: JobRecord) => fresh.leaseToken === job.leaseToken;
  /**
   * A claimed job that never started goes back to pending, no attempt spent,
   * due at `runAt` (or as it was), recorded as this process's release. Kept
   * trying through an outage: out of the buffer, its lease is no longer renewed.
   */
  const handBack = (job: LeasedJob, what: string, runAt?: number) =>
    engine
      .apply(job, { type: JobEventType.release }, { ...(runAt === undefined ? {} : { runAt }), workerId: o.ownerId, again: stillOurs(job), retryUnavailable: true })
      .catch((err: unknown) => void outage.failed(what, err));
  /** Hands back the waiting jobs of paused names and groups: due when their pause ends, no attempt spent. */
  const pauses = createRatePauses();
  const handBackPaused = () => {
    for (const { job, until } of takePaused(waiting, pauses, clock.now())) {
      handBack(job, 'handing back paused jobs', until);
    }
  };
  const grouped = [...limits.values()].some((l) => l.groupConcurrency !== undefined);
  const prefetch = createPrefetchSize(o.concurrency, o.prefetch, clock.now(), grouped);
  const executor = createExecutor(engine, {
    leaseMs: o.leaseMs,
    stuckAfterMs: o.stuckAfterMs,
    maxBacklog: 4 * (o.concurrency + prefetch.max),
    onRateLimited: (pause) => {
      pauses.note(pause);
      handBackPaused();
    },
    ...(threads ? { threads } : {}),
  });
  // Refill when a quarter of the prefetch is left: each claim then takes about
  // three quarters of it in one transaction (a claim costs a commit, so small
  // top-ups of a few jobs each would cost more than the jobs they bring).
  const lowWater = () => Math.floor(prefetch.target() / 4);
  const hungry$ = new Subject<void>();
  /** Set while the buffer is above the low-water mark: its next fall to the mark asks for a claim, once. */
  let refillArmed = false;
  const rateStarts = createRateStarts(limits);
  /** Set while a claim runs; `ranDry` once a worker found the buffer empty meanwhile (prefetch-size.ts `starved`). */
  const claiming = { now: false, ranDry: false };
  // A job that waited in the buffer may have been cancelled by another process meanwhile: looked at once more first.
  const stillHeld = createStartCheck(store, clock, o.leaseMs);
  /** Hands back, newest first, the buffered jobs past what the workers reach within the horizon (prefetch-size.ts overflow): due as they were, no attempt spent. */
  const handBackOverflow = () => {
    const excess = prefetch.overflow(waiting.length, clock.now());
    if (excess <= 0) return;
    for (const job of waiting.splice(waiting.length - excess, excess)) {
      handBack(job, 'handing back jobs claimed ahead');
    }
  };
  /** After each claim: its jobs still waiting two horizons on are looked at, even while every worker is busy. */
  let overflowCheck: TimerHandle | undefined;
  const takeNext = (): LeasedJob | undefined => {
    for (;;) {
      // A job whose previous run is still alive here waits for it (its lease is renewed meanwhile).
      const i = waiting.findIndex((job) => !executor.isRunning(job.id));
      if (i < 0) {
        if (claiming.now && waiting.length === 0) claiming.ranDry = true;
        return undefined;
      }
      const [job] = waiting.splice(i, 1) as [LeasedJob];
      if (refillArmed && waiting.length <= lowWater()) {
        refillArmed = false;
        hungry$.next(); // refill before the workers run dry
      }
      // The lost lease is this object's: the same job may be back in the buffer under a newer claim.
      stillHeld.ahead(waiting, (lost) => {
        const k = waiting.indexOf(lost);
        if (k >= 0) waiting.splice(k, 1);
      });
      if (!isLate(job, clock.now())) {
        prefetch.took();
        handBackOverflow();
        return job;
      }
      // Past its start deadline, its token no longer covers a start: back to pending, due now, no attempt spent.
      handBack(job, 'handing back late jobs', clock.now());
    }
  };
  const pool = createPool(o.concurrency, o.ownerId, takeNext, async (job, workerId) => {
    if (await stillHeld(job)) await executor.run(job, workerId);
  });
  const dropWaiting = (jobId: number): boolean => {
    const i = waiting.findIndex((j) => j.id === jobId);
    if (i >= 0) waiting.splice(i, 1);
    return i >= 0;
  };
  const abort = (jobId: number, reason: AbortReason): boolean => dropWaiting(jobId) || executor.abort(jobId, reason);
  /** Renews the leases of claimed jobs that have not started yet; drops those whose lease was lost. */
  const renewWaiting = async () => {
    const now = clock.now();
    const failures: unknown[] = [];
    for (const job of [...waiting]) {
      if (job.lockedUntil - now >= o.leaseMs / 2) continue;
      try {
        if (!(await extendLease(engine, job, now + o.leaseMs))) dropWaiting(job.id);
      } catch (err) {
        failures.push(err); // kept: only an answer that the lease is gone drops the job
      }
    }
    if (failures.length > 0) throw failures[0];
  };
  const stops: Array<() => void> = [];
  /** The lease sweep made at start: stop() waits for it, as for a pass under way. */
  let firstSweep: Promise<void> = Promise.resolve();
  let readySubscription: Subscription | undefined;
  const { outage } = engine;
  /** A side loop: one try per tick; a database out of reach is logged once per outage. */
  const loop = (what: string, ms: number, fn: () => Promise<void>) =>
    every(
      clock,
      ms,
      async () => {
        await fn();
        outage.recovered(what);
      },
      (err) => void outage.failed(what, err),
    );

  // Other processes' RateLimitedError pauses, read while claimed jobs wait to start.
  const pauseReads = createPauseReads(clock, outage, () => waiting.length, async () => {
    pauses.refresh(await store.pauses(clock.now()), clock.now());
    handBackPaused();
  });

  const sweepMs = Math.min(5000, Math.max(50, Math.floor(o.leaseMs / 4)));
  // This process in the store's process registry (the dashboard's Workers): its heartbeat rides on the sweeps.
  const registration = createProcessRegistry({ store, clock, outage, owner: o.ownerId, concurrency: o.concurrency, names, heartbeatMs: heartbeatEvery(o.leaseMs, sweepMs) });

  /** Turns expired leases (crashed or stuck workers) into failed attempts, through the machine. */
  const sweep = async () => {
    await expireLeases(engine, names, clock.now(), {
      // A run of this process that is still alive keeps its job: its lease ran
      // out only because renewal came late (a busy event loop). Renew it.
      holds: (job) => job.leaseToken !== null && executor.holds(job.id, job.leaseToken),
      renew: () => executor.renewLeases(),
      abort: (id) => void abort(id, 'lease'),
    });
  };

  /** Deletes finished jobs older than their retention, in small transactions, yielding between them. */
  const purgeOld = async () => {
    for (const [state, keepMs] of Object.entries(engine.retention)) {
      if (keepMs === undefined || keepMs === 0) continue;
      while ((await store.purgeFinished(state, clock.now() - keepMs, PURGE_BATCH)) === PURGE_BATCH) {
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  };

  /**
   * Due pending jobs the last claim left behind for a limit are not due for
   * the loop (arming a timer for them would spin), but they are waiting: the
   * loop comes back for them when a rate token or a pause does, when a job
   * of this process ends (freed$, left$), when another process commits
   * (changes$), and at the latest after HELD_BACK_RECHECK_MS, for a store
   * that does not hear of every commit.
   */
  const heldBackUntil = (pending: number | null): number | null => {
    if (!heldBack) return pending;
    const now = clock.now();
    return earliest(pending !== null && pending > now ? pending : null, heldBack.until ?? now + HELD_BACK_RECHECK_MS);
  };
  const earliest = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));

  const scheduler = createScheduler({
    clock,
    // Above the low-water mark the buffer is full enough: `hungry$` asks again.
    freeSlots: () => (waiting.length > lowWater() ? 0 : o.concurrency + prefetch.target() - pool.busy() - waiting.length),
    claim: async (limit) => {
      // Rate-limited jobs only for workers idle now: a rate counts claims (see ClaimRequest.startNow).
      const startNow = Math.max(0, o.concurrency - pool.busy() - waiting.length);
      const now = clock.now();
      const request = { names, limit, owner: o.ownerId, leaseMs: o.leaseMs, now, rule: registry.claimRule };
      const asked = rateStarts.request(now);
      // The buffer held jobs when this claim was sent: emptied before it came back, it was too small.
      claiming.now = true;
      claiming.ranDry = false;
      const fed = waiting.length > 0;
      let jobs: Awaited<ReturnType<typeof store.claim>>;
      try {
        jobs = await store.claim(limits.size > 0 ? { ...request, limits, startNow, ...asked } : request);
      } finally {
        claiming.now = false;
      }
      rateStarts.claimed(now, jobs.heldBack?.tokensOut === true);
      prefetch.claimed(clock.now() - now, clock.now(), fed && claiming.ranDry && jobs.length === limit);
      heldBack = jobs.heldBack;
      engine.claimed(jobs, o.ownerId);
      for (const job of jobs) waiting.push(job);
      refillArmed = waiting.length > lowWater();
      if (overflowCheck !== undefined) clock.clearTimeout(overflowCheck);
      overflowCheck = jobs.length > 0 ? clock.setTimeout(handBackOverflow, 2 * prefetch.horizonMs()) : undefined;
      pauseReads.arm();
      handBackPaused(); // a claim that committed before a pause of this process was written
      pool.kick();
      return jobs.length;
    },
    promoteDue: async (now) => void (await promoteDue(engine, names, now)),
    nextDueAt: async () => {
      // A paused name's pending jobs are not due here: arming a timer for jobs
      // no claim may take would spin the loop. Its delayed states still come due.
      const active = withoutPaused(names, await store.paused());
      const [pending, delayed] = await Promise.all([
        active.length > 0 ? store.nextDueAt(active, [JobState.pending]) : null,
        store.nextDueAt(names, delayedStates),
      ]);
      return earliest(heldBackUntil(pending), delayed);
    },
    externalChange: () => store.externalChange(),
    // Another process's commit as soon as the store sees it (a watch the scheduler holds only while out of jobs).
    changed$: new Observable<void>((subscriber) => store.watchChanges?.(() => subscriber.next())),
    freed$: merge(pool.freed$, hungry$),
    onError: (err, retryInMs) => void outage.failed('claiming jobs', err, retryInMs),
    onRecovered: () => outage.recovered('claiming jobs'),
    onPassEnd: ({ claimed, free, nextLookAt, failed }) => engine.passed({ claimed, free, nextLookAt: nextLookAt === null ? null : new Date(nextLookAt), failed }),
    pollMs: o.pollMs,
    idleMinMs: 250,
    idleMaxMs: 5000,
  });

  /** Resolves true when `done` resolved within `ms`, else false then. */
  const within = (done: Promise<void>, ms: number): Promise<boolean> =>
    new Promise<boolean>((resolve) => {
      const timer = clock.setTimeout(() => resolve(false), ms);
      void done.then(() => {
        clock.clearTimeout(timer);
        resolve(true);
      });
    });
  const idleWithin = async (ms: number): Promise<boolean> => (await within(pool.whenIdle(), ms)) || pool.busy() === 0;

  return {
    start() {
      if (names.length === 0) return; // a producer-only queue runs no workers
      readySubscription = engine.ready$.subscribe(({ at, promote }) => {
        const now = clock.now();
        // A pending job ready now wants a claim only: no pass for due promotions before it
        // (on PostgreSQL that is a query, a round trip before the job can start).
        if (!promote && at <= now) return scheduler.wake();
        scheduler.noteDue(at);
        if (at <= now) scheduler.wake();
      });
      // A job held back for a running one may go once that one's outcome commits
      // (the worker itself went idle before, at freed$).
      const leftSubscription = engine.left$.subscribe(() => {
        if (heldBack) scheduler.wake();
      });
      stops.push(() => leftSubscription.unsubscribe());
      scheduler.start();
      stops.push(
        loop('renewing leases', Math.max(25, Math.floor(o.leaseMs / 4)), async () => {
          // Both, even when the first fails: each renews what it can.
          const [running, waitingJobs] = await Promise.allSettled([executor.renewLeases(), renewWaiting()]);
          for (const r of [running, waitingJobs]) if (r.status === 'rejected') throw r.reason;
        }),
      );
      pauseReads.start();
      stops.push(() => pauseReads.stop());
      void registration.register();
      stops.push(loop('sweeping expired leases', sweepMs, async () => void (await Promise.all([sweep(), registration.beatIfDue()]))));
      // Leases that ran out while no worker was up (a crash, a deploy) are
      // found now, not one sweep interval (up to 5 s) after the start.
      firstSweep = sweep().catch((err: unknown) => void outage.failed('sweeping expired leases', err));
      if (deletesByAge(engine.retention)) {
        stops.push(loop('deleting old jobs', RETENTION_EVERY_MS, purgeOld));
        purgeOld().catch((err: unknown) => void outage.failed('deleting old jobs', err));
      }
    },
    async stop(timeoutMs) {
      readySubscription?.unsubscribe();
      await Promise.all([scheduler.stop(), firstSweep]);
      if (overflowCheck !== undefined) clock.clearTimeout(overflowCheck);
      // Claimed but never started: straight back to pending, no attempt spent.
      const unstarted = waiting.splice(0);
      // Not retried: a job that could not go back waits for its lease to expire (it never ran).
      await Promise.all(unstarted.map((job) => engine.apply(job, { type: JobEventType.release }, { workerId: o.ownerId, again: stillOurs(job) }).catch((err: unknown) => void outage.failed('releasing unstarted jobs', err))));
      if (!(await idleWithin(timeoutMs))) {
        logger.warn({ running: executor.running() }, 'stop timeout: telling running jobs to stop; they go back to pending');
        executor.abortAll('shutdown');
        if (!(await idleWithin(o.stuckAfterMs))) {
          logger.error(
            { running: executor.running() },
            'handlers still running after shutdown: their leases are no longer renewed, and their jobs are retried once the leases expire',
          );
        }
      } else if (!(await within(executor.whenDone(), timeoutMs))) {
        // Outcomes still being written: the database is out of reach, and they are retried until it answers or this timeout.
        logger.warn({ running: executor.running() }, 'stop timeout: some job outcomes are not written yet; those jobs run again once their leases expire');
      }
      for (const stop of stops.splice(0)) stop();
      pool.stop();
      await registration.unregister();
      await threads?.close();
    },
    abort,
    workers: () => pool.snapshot(),
    stuck: () => executor.stuck(),
  };
}
