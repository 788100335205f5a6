/**
 * Runs claimed jobs on worker slots: builds the handler's context, keeps the
 * lease alive while the handler runs, and hands the outcome to the machine
 * (completed, failed → retry/dead, or released back to pending on shutdown).
 *
 * A run is tracked by its lease (job id and lease token), from its start
 * until its handler has settled, even when it was told to stop: until then
 * it keeps its slot and its lease is renewed, so the job cannot be run again
 * beside it. A job moved on without its run (a cancel in any process) keeps
 * the lease as the run's hold (run-holds.ts), renewed the same way, and the
 * run is told to stop as soon as this process hears of the move
 * (`checkMoved`, on the store's change hints) or at its next renewal. A run
 * told to stop that goes on past `stuckAfter` is reported.
 */
import { createProgressWrites } from './progress-writes.js';
import { JobEventType, type JobEvent } from '../../../machines/job.machine.js';
import { TimeoutError } from '../../errors.js';
import { Abortable } from '../../lib/abortable.js';
import { afterDelay, type TimerHandle } from '../../lib/clock.js';
import type { LeasedJob, LimitPause, StepSave } from '../../store/store.js';
import { createBatcher } from '../../lib/batcher.js';
import type { WorkerEngine } from '../core/engine.js';
import { JobContext, type ContextHost } from './handler-context.js';
import { createOutcomeRecorder, type RecordedRun } from './record-outcome.js';
import { afterAbort, runHandler, toErrorInfo, type AbortReason, type Outcome } from './job-runner.js';
import { toContext } from '../core/machine-registry.js';
import type { ThreadOutcome, ThreadPool } from './threads/thread-pool.js';
import { toJob, type Job } from '../core/job-view.js';
import { slotOf } from '../core/cron.js';
import { createLogWriter, LogBuffer } from './log-buffer.js';
import { recordsLevel } from './recording-logger.js';
import { loggedFields } from '../../lib/logged-fields.js';

/** Asks a job's machine whether it accepts `ctx.sleep` in its state (a machine may leave sleep out). */
const SLEEP_PROBE: JobEvent = { type: JobEventType.sleep, delay: 0 };
/** Likewise for `ctx.waitFor`. */
const WAIT_PROBE: JobEvent = { type: JobEventType.wait, topic: '', delay: 0 };

/** A schedule's job's slot, for the thread that runs it (HandlerContext `slot`). */
const slotSpec = (job: LeasedJob): { slot?: number } => {
  const slot = slotOf(job.key);
  return slot === null ? {} : { slot };
};

/** A rate-limited job's start deadline (rate-starts.ts `isLate`) as the thread's clock, Date.now(), reads it. */
const notAfter = (job: LeasedJob, now: number): { notAfter?: number } => (job.startBy === undefined ? {} : { notAfter: Date.now() + (job.startBy - 1 - now) });

/** Children read per query by ctx.children(). */
const CHILDREN_PAGE = 1000;

interface Run extends RecordedRun {
  /** The job is no longer in the claimed state under this run's lease (cancelled, taken over): nothing to write. Its hold is still renewed. */
  leaseGone: boolean;
  /** The handler has settled: the outcome is being written. */
  returned?: boolean;
  stuckTimer?: TimerHandle;
  stuck: boolean;
}

export interface Executor {
  /** Runs one claimed job until its handler has settled and its outcome is handed on. Never rejects. */
  run(job: LeasedJob, workerId: string): Promise<void>;
  /** Tells a running job's handler to stop; false if this process is not running it. */
  abort(jobId: number, reason: AbortReason): boolean;
  abortAll(reason: AbortReason): void;
  /** Extends the leases (and holds) that are past half their time; aborts jobs whose lease was lost. */
  renewLeases(): Promise<void>;
  /** Reads whether the running handlers' jobs are still theirs, and tells those moved on (a cancel elsewhere) to stop. */
  checkMoved(): Promise<void>;
  /** True while a run of this job is alive here. */
  isRunning(jobId: number): boolean;
  /** True while this process runs the job under this lease token, and the lease is not known lost. */
  holds(jobId: number, token: string): boolean;
  running(): number;
  /** Runs told to stop that have gone on past `stuckAfter`. */
  stuck(): number;
  /** Resolves once no run is alive: every handler has returned and every outcome has been written or given up. */
  whenDone(): Promise<void>;
}

export interface ExecutorOptions {
  /** Runs the jobs defined with `isolation: 'thread'` (absent when there are none). */
  threads?: ThreadPool;
  leaseMs: number;
  stuckAfterMs: number;
  /** Outcomes waiting for their commit; past this a worker waits for its own. */
  maxBacklog: number;
  /** A handler's RateLimitedError paused a name or group: called before the pause is written. */
  onRateLimited?(pause: LimitPause): void;
  /**
   * A run ended (its outcome written): a new run of its job, claimed while
   * it was alive, waited in the buffer for this (its worker had moved on).
   */
  onRunEnded?(jobId: number): void;
}

/** Extends a claimed job's lease; false when the lease was lost (expired and taken, cancelled). */
export async function extendLease(engine: WorkerEngine, job: LeasedJob, until: number): Promise<boolean> {
  const ok = await engine.worker.heartbeat(job.id, job.leaseToken, until);
  if (ok) job.lockedUntil = until;
  return ok;
}

export function createExecutor(engine: WorkerEngine, o: ExecutorOptions): Executor {
  const { clock, logger } = engine;
  // Every live run, and the newest run of each job id. A run is its lease
  // (job id and token): an older run of the same job ending never touches the
  // entry of a newer one, and lookups by id check the token.
  const runs = new Set<Run>();
  const byJob = new Map<number, Run>();
  const runOf = (job: LeasedJob): Run | undefined => {
    const run = byJob.get(job.id);
    return run?.job.leaseToken === job.leaseToken ? run : undefined;
  };

  const loseLease = (run: Run) => {
    run.leaseGone = true;
    abortRun(run, 'lease');
  };
  const extend = async (job: LeasedJob, abortable: Abortable): Promise<boolean> => {
    const ok = await extendLease(engine, job, clock.now() + o.leaseMs);
    const run = runOf(job);
    if (!ok && run) loseLease(run);
    else if (!ok) abortable.abort('lease' satisfies AbortReason);
    return ok;
  };
  const stepSaves = createBatcher<StepSave, boolean>((items) => engine.worker.saveSteps(items));
  const logWriter = createLogWriter(engine.worker, logger);
  const recordOutcome = createOutcomeRecorder(engine, { logWriter, ...(o.onRateLimited ? { onRateLimited: o.onRateLimited } : {}) });
  const record: ContextHost['record'] = (job, level, fields, message) => {
    const run = runOf(job);
    if (!run) return; // a line logged after its run ended: nothing writes it any more
    run.logs ??= new LogBuffer(job.id, job.attempts, () => clock.now());
    let shown: Record<string, unknown> | undefined;
    try {
      shown = loggedFields(logger, level, fields);
    } catch (err) {
      // Never the fields unredacted: a line that says why they are missing.
      shown = { logError: `the log object could not be written: ${err instanceof Error ? err.message : String(err)}` };
    }
    run.logs.add(level, shown, message);
  };
  // A job's progress values one write at a time, the newest waiting (progress-writes.ts).
  const progress = createProgressWrites((jobId, token, text) => engine.worker.progress(jobId, token, text, clock.now()));
  const host: ContextHost = {
    extend,
    progress: (job, text) => progress.write(job.id, job.leaseToken, text),
    publish: (job, key, text) => engine.worker.publish(job.id, job.leaseToken, key, text, clock.now()),
    steps: {
      steps: (job) => engine.worker.steps(job.id),
      // Steps finished at the same time share one write (a commit per step bounded the drain at a few hundred jobs a second on PostgreSQL).
      saveStep: (job, step) => stepSaves.push({ id: job.id, token: job.leaseToken, step }),
      now: () => clock.now(),
      canSleep: (job) =>
        engine.registry.forJob(job.name, job.retry).next(job.state, toContext(job.attempts, job.lastError, job.ctx), SLEEP_PROBE) !== undefined,
      canWait: (job) => engine.registry.forJob(job.name, job.retry).next(job.state, toContext(job.attempts, job.lastError, job.ctx), WAIT_PROBE) !== undefined,
      takeMessage: (job, topic, name) => engine.worker.takeMessage({ id: job.id, token: job.leaseToken, topic, step: { name, attempt: job.attempts, at: clock.now() } }),
    },
    logger,
    record,
    children: async (job) => {
      const out: Job[] = [];
      for (let after = 0; ; ) {
        const page = await engine.worker.children(job.id, after, CHILDREN_PAGE);
        for (const r of page) out.push(toJob(r));
        if (page.length < CHILDREN_PAGE) return out;
        after = page[page.length - 1]!.id;
      }
    },
    childCounts: (job) => engine.worker.childCounts(job.id),
  };

  const abortRun = (run: Run, reason: unknown) => {
    if (run.abortable.aborted) return;
    run.abortable.abort(reason);
    if (reason === 'cancel') run.leaseGone = true;
    const abortedAt = clock.now();
    run.stuckTimer = clock.setTimeout(() => {
      run.stuck = true;
      const why = typeof reason === 'string' ? reason : 'timeout';
      engine.stuck({
        type: 'run:stuck',
        job: { id: run.job.id, name: run.job.name },
        attempts: run.job.attempts,
        workerId: run.workerId,
        reason: why,
        abortedAt: new Date(abortedAt),
        at: new Date(clock.now()),
      });
    }, o.stuckAfterMs);
  };

  /** Runs a job on the thread pool; the ctx calls come back to this thread's lease and logger. */
  const runInThread = async (run: Run, module: string): Promise<Outcome> => {
    const { job, workerId, abortable } = run;
    let log: typeof logger | undefined;
    const out: ThreadOutcome = await o.threads!.run(
      { module, payload: job.payload, jobId: job.id, name: job.name, attempt: job.attempts, workerId, ...slotSpec(job), ...(run.span ? { trace: run.span.carrier } : {}), ...notAfter(job, clock.now()) },
      {
        heartbeat: () => extend(job, abortable),
        progress: (text) => progress.write(job.id, job.leaseToken, text),
        log: (level, obj, msg) => {
          log ??= logger.child({ job: job.name, jobId: job.id, attempt: job.attempts, workerId });
          log[level](obj ?? {}, msg);
          if (recordsLevel(logger, level)) record(job, level, obj, msg);
        },
      },
      abortable.signal,
    );
    if (out.kind === 'terminated') return afterAbort(out.reason, { kind: 'failed', error: { name: 'Error', message: 'terminated' } });
    return abortable.aborted ? afterAbort(abortable.reason, out) : out;
  };

  const done: Array<() => void> = [];
  const end = (run: Run) => {
    // Lines logged while the outcome was being written: stored too (never awaited; a write that fails says so in the log).
    if (run.logs?.size) void logWriter.flush(run.logs);
    runs.delete(run);
    if (runs.size === 0) for (const resolve of done.splice(0)) resolve();
    if (byJob.get(run.job.id) === run) byJob.delete(run.job.id);
    if (run.stuckTimer !== undefined) clock.clearTimeout(run.stuckTimer);
    o.onRunEnded?.(run.job.id);
    if (run.stuck) {
      logger.warn({ jobId: run.job.id, job: run.job.name, workerId: run.workerId }, 'stuck handler returned at last');
    }
  };

  return {
    async run(job, workerId) {
      const def = engine.definitions.get(job.name);
      const run: Run = { job, workerId, abortable: new Abortable(), leaseGone: false, stuck: false, span: engine.tracing.attempt(job, workerId) };
      runs.add(run);
      byJob.set(job.id, run);
      const timeoutMs = job.timeout ?? def?.timeout ?? null;
      // However long: a timeout past what one timer holds (~24.8 days) is not cut short.
      const cancelTimeout = timeoutMs === null ? undefined : afterDelay(clock, timeoutMs, () => abortRun(run, new TimeoutError(timeoutMs)));
      let outcome: Outcome;
      let ctx: JobContext | undefined;
      try {
        if (!def) outcome = { kind: 'aborted', reason: 'shutdown' }; // never claimed: names come from definitions
        else if (def.isolation === 'thread') outcome = await runInThread(run, def.module as string);
        else {
          const jobCtx = new JobContext(job, run.abortable, workerId, host, run.span);
          ctx = jobCtx;
          // Inside the attempt's span when traced: the handler's own spans nest under it.
          outcome = await (run.span ? run.span.run(() => runHandler(def.handler!, job.payload, jobCtx, run.abortable)) : runHandler(def.handler!, job.payload, jobCtx, run.abortable));
        }
      } catch (err) {
        // A throw from the runner itself (not the handler: runHandler turns those into outcomes) is a
        // failed attempt, never a free release: a bug here must not loop a job forever without spending attempts.
        outcome = { kind: 'failed', error: toErrorInfo(err) };
        logger.error({ err, jobId: job.id, workerId }, 'could not run a job; the attempt counts as failed');
      } finally {
        cancelTimeout?.();
        run.returned = true;
      }
      // The outcome is written while the run still holds its lease, then the run ends.
      // The worker moves on while the outcome waits for its group commit; past the backlog bound it waits.
      const recorded = recordOutcome(run, outcome, ctx?.parkRequest).finally(() => end(run));
      if (engine.backlog() > o.maxBacklog) await recorded;
    },
    abort(jobId, reason) {
      const run = byJob.get(jobId);
      if (!run) return false;
      abortRun(run, reason);
      return true;
    },
    abortAll(reason) {
      for (const run of runs) abortRun(run, reason);
    },
    async renewLeases() {
      const now = clock.now();
      // Every lease gets its try, even after one failed (a broken connection fails one statement, not the next).
      const failures: unknown[] = [];
      // Lines logged so far are stored meanwhile (one write for every run), so a long handler's show while it runs.
      const written = Promise.all([...runs].map((run) => (run.logs?.size ? logWriter.flush(run.logs) : undefined)));
      for (const run of [...runs]) {
        // A run whose job moved on without it renews its hold until its handler returns.
        if (run.job.lockedUntil - now >= o.leaseMs / 2) continue;
        try {
          await extend(run.job, run.abortable);
        } catch (err) {
          failures.push(err);
        }
      }
      // Not awaited (flush never rejects): a slow log write holds back no later renewal.
      void written;
      if (failures.length > 0) throw failures[0];
    },
    async checkMoved() {
      const live = [...runs].filter((run) => !run.returned && !run.abortable.aborted);
      if (live.length === 0) return;
      const held = await engine.worker.held(live.map((run) => ({ id: run.job.id, token: run.job.leaseToken })));
      const moved = live.filter((_, i) => !held[i]);
      // Moved on by a caller (the row keeps this run's token as its hold): 'cancel'; taken by another claim: 'lease'.
      const rows = await Promise.all(moved.map((run) => engine.worker.get(run.job.id)));
      moved.forEach((run, i) => {
        if (run.returned || !runs.has(run)) return;
        run.leaseGone = true;
        abortRun(run, rows[i]?.leaseToken === run.job.leaseToken ? 'cancel' : 'lease');
      });
    },
    isRunning: (jobId) => byJob.has(jobId),
    holds: (jobId, token) => {
      const run = byJob.get(jobId);
      return run !== undefined && run.job.leaseToken === token && !run.leaseGone;
    },
    running: () => runs.size,
    whenDone: () => (runs.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => done.push(resolve))),
    stuck: () => {
      let n = 0;
      for (const run of runs) if (run.stuck) n++;
      return n;
    },
  };
}
