/**
 * Runs claimed jobs on worker slots: builds the handler's context, keeps the
 * lease alive while the handler runs, and hands the outcome to the machine
 * (completed, failed → retry/dead, or released back to pending on shutdown).
 *
 * A run is tracked by its lease (job id and lease token), from its start
 * until its handler has settled, even when it was told to stop: until then
 * it keeps its slot and its lease is renewed, so the job cannot be run again
 * beside it. A run told to stop that goes on past `stuckAfter` is reported.
 */
import { JobEventType, type JobEvent } from '../../machines/job.machine.js';
import type { ErrorInfo } from '../../machines/policy.js';
import { TimeoutError, ValidationError } from '../errors.js';
import { Abortable } from '../lib/abortable.js';
import type { TimerHandle } from '../lib/clock.js';
import type { JobRecord, LeasedJob, LimitPause, StepSave } from '../store/store.js';
import { createBatcher } from '../lib/batcher.js';
import type { WorkerEngine } from './engine.js';
import { JobContext, type ContextHost } from './handler-context.js';
import type { SleepSignal } from './durable-steps.js';
import type { ApplyResult } from './apply-event.js';
import type { AttemptSpan } from '../telemetry/tracing.js';
import { afterAbort, runHandler, toErrorInfo, type AbortReason, type Outcome } from './job-runner.js';
import { toContext } from './machine-registry.js';
import type { ThreadOutcome, ThreadPool } from './threads/thread-pool.js';
import { toJob, type Job } from './job-view.js';
import { slotOf } from './cron.js';
import { createLogWriter, LogBuffer } from './log-buffer.js';
import { recordsLevel } from './recording-logger.js';
import { loggedFields } from '../lib/logged-fields.js';

/** Asks a job's machine whether it accepts `ctx.sleep` in its state (a machine may leave sleep out). */
const SLEEP_PROBE: JobEvent = { type: JobEventType.sleep, delay: 0 };

/** A schedule's job's slot, for the thread that runs it (HandlerContext `slot`). */
const slotSpec = (job: LeasedJob): { slot?: number } => {
  const slot = slotOf(job.name, job.key);
  return slot === null ? {} : { slot };
};

/** What a run's outcome is written with (apply-event.ts ApplyExtra). */
type OutcomeExtra = { workerId: string; result?: string; retryUnavailable: true; again: (fresh: JobRecord) => boolean };

/** Children read per query by ctx.children(). */
const CHILDREN_PAGE = 1000;

interface Run {
  job: LeasedJob;
  workerId: string;
  abortable: Abortable;
  /** The lease is gone (cancelled, taken over): nothing to renew, nothing to write. */
  leaseGone: boolean;
  stuckTimer?: TimerHandle;
  stuck: boolean;
  /** Its `ctx.log` lines not yet stored; made by the first line. */
  logs?: LogBuffer;
  /** Its span, when tracing is on (telemetry/tracing.ts). */
  span?: AttemptSpan | undefined;
}

export interface Executor {
  /** Runs one claimed job until its handler has settled and its outcome is handed on. Never rejects. */
  run(job: LeasedJob, workerId: string): Promise<void>;
  /** Tells a running job's handler to stop; false if this process is not running it. */
  abort(jobId: number, reason: AbortReason): boolean;
  abortAll(reason: AbortReason): void;
  /** Extends the leases that are past half their time; aborts jobs whose lease was lost. */
  renewLeases(): Promise<void>;
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
  const host: ContextHost = {
    extend,
    progress: (job, value) => engine.worker.progress(job.id, job.leaseToken, value),
    steps: {
      steps: (job) => engine.worker.steps(job.id),
      // Steps finished at the same time share one write (a commit per step bounded the drain at a few hundred jobs a second on PostgreSQL).
      saveStep: (job, step) => stepSaves.push({ id: job.id, token: job.leaseToken, step }),
      now: () => clock.now(),
      canSleep: (job) =>
        engine.registry.forJob(job.name, job.retry).next(job.state, toContext(job.attempts, job.lastError, job.ctx), SLEEP_PROBE) !== undefined,
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
      { module, payload: job.payload, jobId: job.id, name: job.name, attempt: job.attempts, workerId, ...slotSpec(job), ...(run.span ? { trace: run.span.carrier } : {}) },
      {
        heartbeat: () => extend(job, abortable),
        progress: (value) => engine.worker.progress(job.id, job.leaseToken, value),
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

  /**
   * Hands a handler's outcome to the machine; never rejects. While the
   * database is out of reach (a restart) the write is tried again, backing
   * off, for as long as the queue is open: the run, and so its lease renewal,
   * lives until then. A write that fails otherwise leaves the lease to expire.
   */
  const recordOutcome = async (run: Run, outcome: Outcome, sleep: SleepSignal | undefined): Promise<void> => {
    const { job, workerId, span } = run;
    // The attempt's span ends with what the machine made of the outcome.
    const traced = (event: string, r: ApplyResult | undefined, error?: ErrorInfo) =>
      span?.end({ event, ...(r?.accepted && r.committed ? { to: r.to, runAt: r.runAt } : {}), ...(error ? { error } : {}) });
    // While this run's lease holds, its outcome stands even if something else moved the job meanwhile
    // (a custom event that kept it processing): the machine then decides again on the job as it is now.
    const extra: OutcomeExtra = { workerId, retryUnavailable: true, again: (fresh) => fresh.leaseToken === job.leaseToken };
    // The lines first: once the job is seen to have moved on, they are stored.
    if (run.logs) await logWriter.flush(run.logs);
    try {
      // ctx.sleep parked the job: whatever the handler then did with the signal, the job sleeps
      // (unless the run was stopped: cancel, lost lease, shutdown and timeout decide as usual).
      if (sleep && outcome.kind !== 'aborted' && !run.abortable.aborted) {
        const r = await engine.apply(job, { type: JobEventType.sleep, delay: sleep.delay }, extra);
        if (r.accepted) return traced(JobEventType.sleep, r);
        const error = toErrorInfo(new ValidationError(`ctx.sleep("${sleep.step}"): the machine of job "${job.name}" does not take "${JobEventType.sleep}" from "${job.state}"`));
        traced(JobEventType.fail, await engine.apply(job, { type: JobEventType.fail, error, random: Math.random() }, extra), error);
      } else if (outcome.kind === 'completed') {
        if (outcome.result !== undefined) extra.result = outcome.result;
        const r = await engine.apply(job, { type: JobEventType.complete }, extra);
        if (r.accepted && !r.committed) logger.warn({ jobId: job.id, workerId }, 'job completed after its lease was lost; result dropped');
        traced(JobEventType.complete, r);
      } else if (outcome.kind === 'failed' && outcome.error.rateLimited) {
        traced(JobEventType.release, await rateLimited(job, outcome.error, extra), outcome.error);
      } else if (outcome.kind === 'failed') {
        traced(JobEventType.fail, await engine.apply(job, { type: JobEventType.fail, error: outcome.error, random: Math.random() }, extra), outcome.error);
      } else if (outcome.reason === 'shutdown') {
        // Put it back without spending an attempt.
        traced(JobEventType.release, await engine.apply(job, { type: JobEventType.release }, extra));
      } else {
        // cancel / lease lost: the job already left processing; there is nothing to write.
        span?.end({ aborted: String(outcome.reason) });
      }
    } catch (err) {
      // The lease will expire and the sweeper retries the job.
      logger.error({ err, jobId: job.id, workerId }, 'could not record the outcome of a job');
      span?.end({ error: toErrorInfo(err) });
    }
  };

  /**
   * A handler's RateLimitedError: pause its group (or name) in every process
   * first, so no claim takes its siblings meanwhile, then put the job back,
   * due after the pause, without spending an attempt (the machine's release).
   */
  const rateLimited = async (job: LeasedJob, error: ErrorInfo, extra: OutcomeExtra): Promise<ApplyResult> => {
    const { delay, scope } = error.rateLimited!;
    const at = clock.now();
    const [kind, key] = scope === 'group' && job.group ? (['group', job.group] as const) : (['name', job.name] as const);
    // This process's jobs of the name or group claimed ahead of time must not start either (rate-pauses.ts).
    o.onRateLimited?.({ kind, key, until: at + delay });
    try {
      await engine.worker.pauseLimit(kind, key, at + delay, at);
      logger.info({ jobId: job.id, job: job.name, [kind]: key, delayMs: delay }, `rate limited: ${kind} paused`);
    } catch (err) {
      // The job itself still waits out the delay.
      logger.warn({ err, jobId: job.id, [kind]: key }, `rate limited: could not pause the ${kind}`);
    }
    return engine.apply(job, { type: JobEventType.release, error }, { ...extra, runAt: at + delay });
  };

  const done: Array<() => void> = [];
  const end = (run: Run) => {
    // Lines logged while the outcome was being written: stored too (never awaited; a write that fails says so in the log).
    if (run.logs?.size) void logWriter.flush(run.logs);
    runs.delete(run);
    if (runs.size === 0) for (const resolve of done.splice(0)) resolve();
    if (byJob.get(run.job.id) === run) byJob.delete(run.job.id);
    if (run.stuckTimer !== undefined) clock.clearTimeout(run.stuckTimer);
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
      const timer = timeoutMs === null ? undefined : clock.setTimeout(() => abortRun(run, new TimeoutError(timeoutMs)), timeoutMs);
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
        if (timer !== undefined) clock.clearTimeout(timer);
      }
      // The outcome is written while the run still holds its lease, then the run ends.
      // The worker moves on while the outcome waits for its group commit; past the backlog bound it waits.
      const recorded = recordOutcome(run, outcome, ctx?.sleepRequest).finally(() => end(run));
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
        if (run.leaseGone || run.job.lockedUntil - now >= o.leaseMs / 2) continue;
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
