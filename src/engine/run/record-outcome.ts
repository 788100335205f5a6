/**
 * What becomes of a run: its handler's outcome handed to the job's machine
 * (complete, fail, sleep, a rate limit's release, a shutdown's release) and
 * written while the run still holds its lease; the attempt's span ended with
 * what the machine made of it.
 */
import { JobEventType } from '../../../machines/job.machine.js';
import type { ErrorInfo } from '../../../machines/policy.js';
import { ValidationError } from '../../errors.js';
import type { Abortable } from '../../lib/abortable.js';
import type { JobRecord, LeasedJob, LimitPause } from '../../store/store.js';
import type { AttemptSpan } from '../../telemetry/tracing.js';
import type { ApplyResult } from '../core/moves.js';
import { WaitSignal, type SleepSignal } from './durable-steps.js';
import type { WorkerEngine } from '../core/engine.js';
import { storedError, toErrorInfo, toLoggedError, type Outcome } from './job-runner.js';
import type { LogBuffer, LogWriter } from './log-buffer.js';

/** What recording an outcome reads of a run. */
export interface RecordedRun {
  job: LeasedJob;
  workerId: string;
  abortable: Abortable;
  /** Its `ctx.log` lines not yet stored; made by the first line. */
  logs?: LogBuffer;
  /** Its span, when tracing is on (telemetry/tracing.ts). */
  span?: AttemptSpan | undefined;
}

/** What a run's outcome is written with (apply-event.ts ApplyExtra). */
type OutcomeExtra = { workerId: string; result?: string; retryUnavailable: true; again: (fresh: JobRecord) => boolean };

export interface OutcomeRecorderOptions {
  logWriter: LogWriter;
  /** A handler's RateLimitedError paused a name or group: called before the pause is written. */
  onRateLimited?(pause: LimitPause): void;
}

/** A sleep or a wait for a message that parks the job once its handler settled. */
export type ParkRequest = SleepSignal | WaitSignal;

export type RecordOutcome = (run: RecordedRun, outcome: Outcome, park: ParkRequest | undefined) => Promise<void>;

export function createOutcomeRecorder(engine: WorkerEngine, o: OutcomeRecorderOptions): RecordOutcome {
  const { clock, logger } = engine;

  /**
   * A handler's RateLimitedError: pause its group (or name) in every process
   * first, so no claim takes its siblings meanwhile, then put the job back,
   * due after the pause, without spending an attempt (the machine's release).
   */
  const rateLimited = async (job: LeasedJob, error: ErrorInfo, extra: OutcomeExtra, apply: WorkerEngine['apply']): Promise<ApplyResult> => {
    const { delay, scope } = error.rateLimited!;
    const at = clock.now();
    const [kind, key] = scope === 'group' && job.group ? (['group', job.group] as const) : (['name', job.name] as const);
    // This process's jobs of the name or group claimed ahead of time must not start either (rate-pauses.ts).
    o.onRateLimited?.({ kind, key, until: at + delay });
    try {
      // On the database's clock, where every process reads it (shared-time.ts): it lasts `delay` on all of them.
      const t = await engine.time.now();
      await engine.worker.pauseLimit(kind, key, t.hi + delay, t.lo);
      logger.info({ jobId: job.id, job: job.name, [kind]: key, delayMs: delay }, `rate limited: ${kind} paused`);
    } catch (err) {
      // The job itself still waits out the delay.
      logger.warn({ err, jobId: job.id, [kind]: key }, `rate limited: could not pause the ${kind}`);
    }
    return apply(job, { type: JobEventType.release, error }, { ...extra, runAt: at + delay });
  };

  /**
   * Hands a handler's outcome to the machine; never rejects. While the
   * database is out of reach (a restart) the write is tried again, backing
   * off, for as long as the queue is open: the run, and so its lease renewal,
   * lives until then. A write that fails otherwise leaves the lease to expire.
   * A run whose job was moved on without it (a cancel elsewhere) writes
   * nothing and gives back its hold on the job (run-holds.ts).
   */
  return async (run, outcome, park) => {
    const { job, workerId, span } = run;
    // The attempt's span ends with what the machine made of the outcome.
    const traced = (event: string, r: ApplyResult | undefined, error?: ErrorInfo) =>
      span?.end({ event, ...(r?.accepted && r.committed ? { to: r.to, runAt: r.runAt } : {}), ...(error ? { error } : {}) });
    // While this run's lease holds, its outcome stands even if something else moved the job meanwhile
    // (a custom event that kept it processing): the machine then decides again on the job as it is now.
    // (A job moved out of the claimed state holds the token only as this run's hold: the outcome no longer stands.)
    const extra: OutcomeExtra = { workerId, retryUnavailable: true, again: (fresh) => fresh.leaseToken === job.leaseToken && fresh.state === engine.registry.claimRule.to };
    /** Set once the outcome's move committed: the lease went with it. */
    let ended = false;
    const apply: WorkerEngine['apply'] = async (...args) => {
      const r = await engine.apply(...args);
      if (r.accepted && r.committed) ended = true;
      return r;
    };
    // The lines first: once the job is seen to have moved on, they are stored.
    if (run.logs) await o.logWriter.flush(run.logs);
    try {
      // ctx.sleep or ctx.waitFor parked the job: whatever the handler then did with the signal, the job parks
      // (unless the run was stopped: cancel, lost lease, shutdown and timeout decide as usual).
      if (park && outcome.kind !== 'aborted' && !run.abortable.aborted) {
        const waits = park instanceof WaitSignal;
        const event = waits ? { type: JobEventType.wait, topic: park.topic, delay: park.delay } : { type: JobEventType.sleep, delay: park.delay };
        const r = await apply(job, event, extra);
        if (r.accepted) {
          traced(event.type, r);
          // A message sent while the run went on: the signal saw the job running, so it is this side's to wake.
          if (waits && r.committed) {
            await engine.wakeWaiting(job.id, park.topic).catch((err: unknown) => {
              logger.warn({ err, jobId: job.id, topic: park.topic }, 'could not look for a message sent while the job ran; it waits for the next one or its timeout');
            });
          }
        } else {
          const asked = waits ? `ctx.waitFor("${park.topic}")` : `ctx.sleep("${park.step}")`;
          const error = toErrorInfo(new ValidationError(`${asked}: the machine of job "${job.name}" does not take "${event.type}" from "${job.state}"`));
          traced(JobEventType.fail, await apply(job, { type: JobEventType.fail, error, random: Math.random() }, extra), error);
        }
      } else if (outcome.kind === 'completed') {
        if (outcome.result !== undefined) extra.result = outcome.result;
        const r = await apply(job, { type: JobEventType.complete }, extra);
        if (r.accepted && !r.committed) logger.warn({ jobId: job.id, workerId }, 'job completed after its lease was lost; result dropped');
        traced(JobEventType.complete, r);
      } else if (outcome.kind === 'failed' && outcome.error.rateLimited) {
        const r = await rateLimited(job, outcome.error, extra, apply);
        span?.end({ event: JobEventType.release, ...(r.accepted && r.committed ? { to: r.to, runAt: r.runAt } : {}), rateLimited: outcome.error.rateLimited });
      } else if (outcome.kind === 'failed') {
        const error = storedError(outcome.error);
        if (error !== outcome.error) logger.warn({ err: toLoggedError(outcome.error), jobId: job.id, workerId }, 'a database failure failed the attempt');
        traced(JobEventType.fail, await apply(job, { type: JobEventType.fail, error, random: Math.random() }, extra), error);
      } else if (outcome.kind === 'late') {
        // Its start deadline passed before a thread called its handler: back to pending, unstarted (rate-starts.ts).
        traced(JobEventType.release, await apply(job, { type: JobEventType.release }, { ...extra, runAt: clock.now() }));
      } else if (outcome.reason === 'shutdown') {
        // Put it back without spending an attempt.
        traced(JobEventType.release, await apply(job, { type: JobEventType.release }, extra));
      } else {
        // cancel / lease lost: the job already left processing; there is nothing to write.
        span?.end({ aborted: String(outcome.reason) });
      }
    } catch (err) {
      // The lease will expire and the sweeper retries the job.
      logger.error({ err, jobId: job.id, workerId }, 'could not record the outcome of a job');
      span?.end({ error: toErrorInfo(err) });
      return;
    }
    if (ended) return;
    try {
      await engine.releaseHold(job.id, job.leaseToken);
    } catch (err) {
      // The hold runs out with the lease: the job waits until then.
      logger.warn({ err, jobId: job.id, workerId }, 'could not give back the hold of an ended run');
    }
  };
}
