/**
 * The consuming side of a queue: the claim loop (scheduler.ts) and the
 * prefetch buffer it fills (claim-buffer.ts), the worker pool that takes from
 * it, and the side loops (lease renewal, lease sweeper, retention). Built by
 * `queue.start()`, torn down by `queue.stop()`. It receives the engine and
 * works through it: claims and outcomes go down, readiness comes from
 * `engine.ready$`.
 */
import { merge, Observable, type Subscription } from 'rxjs';
import { JobEventType, JobState } from '../../machines/job.machine.js';
import { every } from '../lib/clock.js';
import { withoutPaused } from '../store/paused.js';
import type { ClaimResult, JobRecord, LeasedJob } from '../store/store.js';
import { createClaimBuffer } from './claim/claim-buffer.js';
import type { WorkerEngine } from './core/engine.js';
import { createExecutor, extendLease, type Executor } from './run/executor.js';
import type { AbortReason } from './run/job-runner.js';
import { createPool, type WorkerInfo } from './run/pool.js';
import { createProcessRegistry, heartbeatEvery } from './run/process-registry.js';
import { claimTerms, createRateStarts, startWithinMs } from './claim/rate-starts.js';
import { createStartCheck } from './claim/start-check.js';
import { createMovedCheck } from './claim/moved-check.js';
import { createScheduler } from './claim/scheduler.js';
import { createThreadPool } from './run/threads/thread-pool.js';
import { expireLeases, promoteDue, releaseExpiredHolds, wakeUnseenMessages } from './move/sweeps.js';
import { createPauseReads, createRatePauses } from './claim/rate-pauses.js';

export interface ConsumerOptions {
  ownerId: string;
  /** The job names this consumer claims and runs (a pool's: pools.ts); default every defined one. */
  names?: readonly string[];
  /** Its pool's name (pools.ts), shown with its workers. Default `default`. */
  pool?: string;
  /** Whether any run of this process (of any of its pools) holds the job now. */
  processRuns?: (jobId: number) => boolean;
  concurrency: number;
  /** Jobs claimed ahead of idle workers (same lease), so claims come in batches; absent: sized as the queue runs (prefetch-size.ts). */
  prefetch: number | undefined;
  leaseMs: number;
  pollMs: number;
  stuckAfterMs: number;
  /** Size of the worker-thread pool for `isolation: 'thread'` jobs. */
  threads: number;
  /** The queue's retention loop (retention-loop.ts): run while the consumer runs (a queue that only takes jobs by hand runs it too). */
  retention: { start(): void; stop(): Promise<void> };
}

export interface Consumer {
  start(): void;
  /**
   * Stops claiming, lets running jobs finish for up to `timeoutMs`, then tells
   * them to stop and waits up to `stuckAfter` more for their handlers.
   */
  stop(timeoutMs: number): Promise<void>;
  abort(jobId: number, reason: AbortReason): boolean;
  workers(): Array<WorkerInfo & { pool: string }>;
  /** Whether one of its runs holds the job now. */
  runs(jobId: number): boolean;
  /** Runs told to stop that have not returned after `stuckAfter`. */
  stuck(): number;
}

export function createConsumer(engine: WorkerEngine, o: ConsumerOptions): Consumer {
  const { worker: store, registry, clock, logger, outage } = engine;
  const names = o.names ? [...o.names] : [...engine.definitions.keys()];
  const delayedStates = registry.delayedStates;
  const needsThreads = names.some((name) => engine.definitions.get(name)?.isolation === 'thread');
  const threads = needsThreads ? createThreadPool({ size: o.threads }) : undefined;
  // Still claimed under this lease: a job moved on meanwhile holds the token only as its run's hold (run-holds.ts).
  const stillOurs = (job: LeasedJob) => (fresh: JobRecord) => fresh.leaseToken === job.leaseToken && fresh.state === registry.claimRule.to;
  /** A claimed job dropped unstarted: whatever moved it on left this claim's lease as a hold, given back now (run-holds.ts). */
  const dropped = (job: LeasedJob) =>
    void engine.releaseHold(job.id, job.leaseToken).catch((err: unknown) => void outage.failed('giving back the holds of jobs dropped unstarted', err));
  /**
   * Back to pending, no attempt spent, recorded as this process's release: the lease goes with the move.
   * A job moved on meanwhile (a cancel) keeps the lease as a hold, given back here.
   */
  const giveBack = async (job: LeasedJob, extra: { runAt?: number; retryUnavailable?: true }) => {
    const r = await engine.apply(job, { type: JobEventType.release }, { ...extra, workerId: o.ownerId, again: stillOurs(job) });
    if (!(r.accepted && r.committed)) await engine.releaseHold(job.id, job.leaseToken);
  };
  /**
   * A job claimed and never started, back to pending (due at `runAt`, or as it was), no attempt spent, recorded as
   * this process's release. Kept trying through an outage: out of the buffer, its lease is no longer renewed.
   */
  const handBack = (job: LeasedJob, why: string, runAt?: number) =>
    void giveBack(job, { ...(runAt === undefined ? {} : { runAt }), retryUnavailable: true }).catch((err: unknown) => void outage.failed(`handing back jobs claimed ahead (${why})`, err));
  const pauses = createRatePauses();
  // A job that waited in the buffer may have been cancelled by another process meanwhile: looked at once more first.
  const startCheck = createStartCheck(store, clock, o.leaseMs);
  let executor: Executor | undefined;
  const buffer = createClaimBuffer({
    concurrency: o.concurrency,
    prefetch: o.prefetch,
    grouped: [...engine.limits.values()].some((l) => l.groupConcurrency !== undefined),
    clock,
    pauses,
    isRunning: (jobId) => executor!.isRunning(jobId),
    handBack,
    lost: dropped,
    signal: (event) => engine.buffered(event),
  });
  executor = createExecutor(engine, {
    leaseMs: o.leaseMs,
    stuckAfterMs: o.stuckAfterMs,
    maxBacklog: 4 * (o.concurrency + buffer.max),
    onRateLimited: (pause) => {
      pauses.note(pause);
      buffer.handBackPaused();
    },
    // A job woken (a message, a sleep's end) while its last run still wrote its outcome was claimed and
    // then left in the buffer by every idle worker: it starts now, not at the next claim pass.
    onRunEnded: () => {
      if (buffer.size() > 0) pool.kick();
    },
    ...(threads ? { threads } : {}),
  });
  const run = executor;
  // Built from the limits in force; limits changed while the queue runs (live-limits.ts) are a new snapshot, and
  // the next claim builds them anew from it.
  let limits = engine.limits;
  let rateStarts = createRateStarts(limits);
  let startWithin = startWithinMs(limits);
  const followLimits = () => {
    if (engine.limits === limits) return;
    limits = engine.limits;
    rateStarts = createRateStarts(limits);
    startWithin = startWithinMs(limits);
  };
  const take = () => {
    const job = buffer.take();
    // Leases of the jobs left waiting, confirmed before a worker needs them (start-check.ts).
    if (job) startCheck.ahead(buffer.queued(), buffer.lose);
    return job;
  };
  const pool = createPool(o.concurrency, o.ownerId, take, async (job, workerId) => {
    const verdict = await startCheck(job);
    if (verdict === 'moved') return dropped(job);
    // Past its start deadline (rate-starts.ts): its token no longer covers a start. Back to pending, due now.
    if (verdict === 'late') return buffer.handBack(job, 'late', clock.now());
    await run.run(job, workerId);
  });
  const abort = (jobId: number, reason: AbortReason): boolean => {
    const waiting = buffer.drop(jobId);
    if (waiting) dropped(waiting);
    return waiting !== undefined || run.abort(jobId, reason);
  };
  /** Renews the leases of claimed jobs that have not started yet; drops those whose lease was lost. */
  const renewWaiting = async () => {
    const now = clock.now();
    const failures: unknown[] = [];
    for (const job of buffer.renewable(now, o.leaseMs)) {
      try {
        if (!(await extendLease(engine, job, now + o.leaseMs)) && buffer.drop(job.id)) dropped(job);
      } catch (err) {
        failures.push(err); // kept: only an answer that the lease is gone drops the job
      }
    }
    if (failures.length > 0) throw failures[0];
  };
  const stops: Array<() => void> = [];
  // Moves other processes made, heard at the store's hints (moved-check.ts).
  const checkMoved = createMovedCheck({ store, clock, run, buffer, startCheck, dropped, failed: (err) => void outage.failed('reading whether running jobs were cancelled', err) });
  /** The lease sweep made at start: stop() waits for it, as for a pass under way. */
  let firstSweep: Promise<void> = Promise.resolve();
  let readySubscription: Subscription | undefined;
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
  const pauseReads = createPauseReads(clock, outage, () => buffer.size(), async () => {
    // Written on the database's clock (record-outcome.ts): their ends as this process's clock.
    const read = await store.pauses((await engine.time.now()).lo);
    pauses.refresh(
      read.map((p) => ({ ...p, until: engine.time.toLocal(p.until) })),
      clock.now(),
    );
    buffer.handBackPaused();
  });

  const sweepMs = Math.min(5000, Math.max(50, Math.floor(o.leaseMs / 4)));
  // This process in the store's process registry (the dashboard's Workers): its heartbeat rides on the sweeps.
  const registration = createProcessRegistry({ store, clock, outage, owner: o.ownerId, concurrency: o.concurrency, names, heartbeatMs: heartbeatEvery(o.leaseMs, sweepMs) });

  /** Turns expired leases (crashed or stuck workers) into failed attempts, through the machine. */
  const sweep = async () => {
    // A hold is any of this process's runs' (its other pools' too: their own sweeps renew them).
    await releaseExpiredHolds(engine, clock.now(), { runs: (id) => run.isRunning(id) || o.processRuns?.(id) === true, renew: () => run.renewLeases() });
    await expireLeases(engine, names, clock.now(), {
      // A run of this process that is still alive keeps its job: its lease ran
      // out only because renewal came late (a busy event loop). Renew it.
      holds: (job) => job.leaseToken !== null && run.holds(job.id, job.leaseToken),
      renew: () => run.renewLeases(),
      abort: (id) => void abort(id, 'lease'),
    });
    // A wake a process died before making (or a database error kept it from): the message is there, the job still parked.
    await wakeUnseenMessages(engine, names);
  };

  const { retention } = o;

  const earliest = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));

  const scheduler = createScheduler({
    clock,
    // Above the low-water mark the buffer is full enough: `hungry$` asks again.
    freeSlots: () => buffer.freeSlots(pool.busy()),
    claim: async (limit) => {
      followLimits();
      // Rate-limited jobs only for workers idle now, while a limit binds (rate-starts.ts).
      const startNow = buffer.idleWorkers(pool.busy());
      const now = clock.now();
      const request = { names, limit, owner: o.ownerId, leaseMs: o.leaseMs, now, rule: registry.claimRule };
      buffer.claiming();
      let result: ClaimResult | undefined;
      try {
        // Pauses (any name's) and rate limits on the database's clock; every rate-limited job starts within `startWithin`.
        result = await store.claim({ ...request, ...(await claimTerms(engine.time, limits, { startWithin, ahead: rateStarts.ahead(now), startNow })) });
        // The time the claim comes back for held-back jobs is the database's: as this process's clock.
        if (result.heldBack?.until != null) result = { ...result, heldBack: { ...result.heldBack, until: engine.time.toLocal(result.heldBack.until) } };
      } finally {
        buffer.claimed(result, limit, now);
      }
      const { jobs, heldBack } = result!; // set, or the claim threw past the finally
      // Held from the claim's commit, at the end of its statement: its reply is a fraction of a round trip later.
      // A claim slowed by a busy database (tens of ms) would otherwise leave every job it brought to a read.
      startCheck.confirm(jobs, clock.now());
      rateStarts.claimed(now, heldBack?.tokensOut === true);
      engine.claimed(jobs, o.ownerId);
      pauseReads.arm();
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
      // Due pending jobs the last claim left behind for a limit are not due for the loop (arming a
      // timer for them would spin), but they are waiting: it comes back for them then (claim-buffer.ts).
      return earliest(buffer.dueBack(pending, clock.now()), delayed);
    },
    externalChange: () => store.externalChange(),
    // Another process's commit as soon as the store sees it (a watch the scheduler holds only while out of jobs).
    changed$: new Observable<void>((subscriber) => store.watchChanges?.(() => subscriber.next())),
    freed$: merge(pool.freed$, buffer.hungry$),
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
        if (buffer.heldBack()) scheduler.wake();
      });
      stops.push(() => leftSubscription.unsubscribe());
      scheduler.start();
      const unwatch = [store.watchChanges?.(() => checkMoved()), store.watchFinished?.(() => checkMoved())];
      stops.push(() => {
        for (const stop of unwatch) stop?.();
      });
      stops.push(
        loop('renewing leases', Math.max(25, Math.floor(o.leaseMs / 4)), async () => {
          // Both, even when the first fails: each renews what it can.
          const [running, waitingJobs] = await Promise.allSettled([run.renewLeases(), renewWaiting()]);
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
      retention.start();
    },
    async stop(timeoutMs) {
      readySubscription?.unsubscribe();
      await Promise.all([scheduler.stop(), firstSweep, retention.stop()]);
      // Claimed but never started: straight back to pending, no attempt spent.
      const unstarted = buffer.stop();
      // Not retried: a job that could not go back waits for its lease to expire (it never ran).
      await Promise.all(unstarted.map((job) => giveBack(job, {}).catch((err: unknown) => void outage.failed('releasing unstarted jobs', err))));
      if (!(await idleWithin(timeoutMs))) {
        logger.warn({ running: run.running() }, 'stop timeout: telling running jobs to stop; they go back to pending');
        run.abortAll('shutdown');
        if (!(await idleWithin(o.stuckAfterMs))) {
          logger.error(
            { running: run.running() },
            'handlers still running after shutdown: their leases are no longer renewed, and their jobs are retried once the leases expire',
          );
        }
      } else if (!(await within(run.whenDone(), timeoutMs))) {
        // Outcomes still being written: the database is out of reach, and they are retried until it answers or this timeout.
        logger.warn({ running: run.running() }, 'stop timeout: some job outcomes are not written yet; those jobs run again once their leases expire');
      }
      for (const stop of stops.splice(0)) stop();
      pool.stop();
      await registration.unregister();
      await threads?.close();
    },
    abort,
    workers: () => pool.snapshot().map((w) => ({ ...w, pool: o.pool ?? 'default' })),
    runs: (jobId) => run.isRunning(jobId),
    stuck: () => run.stuck(),
  };
}
