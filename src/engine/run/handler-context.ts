/**
 * The `ctx` a handler receives. One object per job, built for every job run:
 * a class keeps that to one allocation, where an object literal with getters
 * and closures cost a measurable share of a drain. `heartbeat` and `progress`
 * are getters that hand out functions bound on first read, so that
 * destructuring (`async (p, { heartbeat }) => …`) still works.
 */
import { slotOf } from '../core/cron.js';
import type { HandlerContext } from '../core/job-definition.js';
import type { Abortable } from '../../lib/abortable.js';
import { LeaseLostError, ValidationError } from '../../errors.js';
import type { Logger } from '../../lib/logger.js';
import { recordingLogger, type RecordLine } from './recording-logger.js';
import type { LeasedJob } from '../../store/store.js';
import { PUBLISHED_KEYS_MAX } from '../../store/contract/run-data.js';
import type { Job } from '../core/job-view.js';
import type { Duration } from '../../lib/duration.js';
import { StepRun, type SleepSignal, type StepHost, type WaitSignal } from './durable-steps.js';
import type { AttemptSpan } from '../../telemetry/tracing.js';
import type { TraceCarrier } from '../../telemetry/trace-context.js';
import { checkPublishKey, progressText, PUBLISHED_MAX_BYTES, valueText } from './progress-value.js';

/** What every context of one executor shares (one object, not one per job). */
export interface ContextHost {
  /** Extends the job's lease; false if it was lost (then the job is aborted). */
  extend(job: LeasedJob, abortable: Abortable): Promise<boolean>;
  /** Records progress (its JSON text: progress-value.ts); false if the lease was lost. */
  progress(job: LeasedJob, text: string): Promise<boolean>;
  /** Records a published value (its JSON text): Store.publish's answer. */
  publish(job: LeasedJob, key: string, text: string): Promise<'written' | 'lost' | 'full'>;
  /** Reads and records the job's durable steps (durable-steps.ts). */
  steps: StepHost;
  logger: Logger;
  /** Records a line of `ctx.log` with the job (log-buffer.ts). */
  record(job: LeasedJob, ...line: Parameters<RecordLine>): void;
  /** A flow parent's children, all of them, in id order. */
  children(job: LeasedJob): Promise<Job[]>;
  childCounts(job: LeasedJob): Promise<Record<string, number>>;
}

export class JobContext implements HandlerContext {
  readonly jobId: number;
  readonly name: string;
  readonly attempt: number;
  readonly slot: Date | undefined;
  private boundHeartbeat: (() => Promise<void>) | undefined;
  private boundProgress: ((value: unknown) => Promise<void>) | undefined;
  private childLog: Logger | undefined;
  private boundChildren: (() => Promise<Job[]>) | undefined;
  private boundChildCounts: (() => Promise<Record<string, number>>) | undefined;
  /** Built on the first step or sleep: most handlers take none. */
  private stepRun: StepRun | undefined;
  private boundStep: (<T>(name: string, fn: () => T | Promise<T>) => Promise<T>) | undefined;
  private boundSleep: ((name: string, duration: Duration) => Promise<void>) | undefined;
  private boundPublish: ((key: string, value: unknown) => Promise<void>) | undefined;
  private boundWaitFor: ((topic: string, options?: { timeout?: Duration }) => Promise<unknown>) | undefined;

  constructor(
    private readonly job: LeasedJob,
    private readonly abortable: Abortable,
    private readonly workerId: string,
    private readonly host: ContextHost,
    private readonly span?: AttemptSpan,
  ) {
    this.jobId = job.id;
    this.name = job.name;
    this.attempt = job.attempts;
    const slot = job.key === null ? null : slotOf(job.key);
    this.slot = slot === null ? undefined : new Date(slot);
  }

  get trace(): TraceCarrier | undefined {
    return this.span?.carrier;
  }

  get signal(): AbortSignal {
    return this.abortable.signal;
  }

  get heartbeat(): () => Promise<void> {
    this.boundHeartbeat ??= async () => {
      if (!(await this.host.extend(this.job, this.abortable))) throw new LeaseLostError(this.job.id);
    };
    return this.boundHeartbeat;
  }

  get progress(): (value: unknown) => Promise<void> {
    this.boundProgress ??= async (value: unknown) => {
      const text = progressText(value);
      if (!(await this.host.progress(this.job, text))) throw new LeaseLostError(this.job.id);
    };
    return this.boundProgress;
  }

  get publish(): (key: string, value: unknown) => Promise<void> {
    this.boundPublish ??= async (key: string, value: unknown) => {
      const text = valueText(`ctx.publish("${String(key).slice(0, 100)}")`, value, PUBLISHED_MAX_BYTES);
      const answer = await this.host.publish(this.job, checkPublishKey('ctx.publish', key), text);
      if (answer === 'lost') throw new LeaseLostError(this.job.id);
      if (answer === 'full') throw new ValidationError(`ctx.publish("${key}"): the job holds values under ${PUBLISHED_KEYS_MAX} keys, the most it may; publish under one of them`);
    };
    return this.boundPublish;
  }

  get step(): <T>(name: string, fn: () => T | Promise<T>) => Promise<T> {
    this.boundStep ??= <T>(name: string, fn: () => T | Promise<T>) => this.steps().step(name, fn);
    return this.boundStep;
  }

  get sleep(): (name: string, duration: Duration) => Promise<void> {
    this.boundSleep ??= (name: string, duration: Duration) => this.steps().sleep(name, duration);
    return this.boundSleep;
  }

  get waitFor(): <T = unknown>(topic: string, options?: { timeout?: Duration }) => Promise<T | null> {
    this.boundWaitFor ??= (topic: string, options?: { timeout?: Duration }) => this.steps().waitFor(topic, options);
    return this.boundWaitFor as <T = unknown>(topic: string, options?: { timeout?: Duration }) => Promise<T | null>;
  }

  /** The sleep or wait for a message that parks the job, if the handler asked for one (read by the executor once the handler settled). */
  get parkRequest(): SleepSignal | WaitSignal | undefined {
    return this.stepRun?.sleepRequest ?? this.stepRun?.waitRequest;
  }

  private steps(): StepRun {
    this.stepRun ??= new StepRun(this.job, this.host.steps, this.span);
    return this.stepRun;
  }

  get log(): Logger {
    // Built on first use: most handlers never log, and a child logger is not free.
    this.childLog ??= recordingLogger(
      this.host.logger.child({ job: this.job.name, jobId: this.job.id, attempt: this.job.attempts, workerId: this.workerId }),
      (level, fields, message) => this.host.record(this.job, level, fields, message),
    );
    return this.childLog;
  }

  get children(): () => Promise<Job[]> {
    this.boundChildren ??= () => this.host.children(this.job);
    return this.boundChildren;
  }

  get childCounts(): () => Promise<Record<string, number>> {
    this.boundChildCounts ??= () => this.host.childCounts(this.job);
    return this.boundChildCounts;
  }
}
