/**
 * The `ctx` a handler receives inside a handler thread. `signal` is the
 * thread's own AbortSignal, aborted when the pool forwards an abort;
 * `heartbeat` and `progress` ask the main thread (which holds the store) and
 * wait for its answer; `log` forwards pino-style calls to the main thread's
 * logger. `heartbeat` and `progress` are bound, so destructuring works.
 * Durable steps (`step`, `sleep`) are not bridged: they refuse with a
 * ValidationError (run such a job on the main thread, and put the CPU-bound
 * part in a thread job of its own).
 */
import type { ErrorInfo } from '../../../../machines/policy.js';
import { LeaseLostError, ValidationError } from '../../../errors.js';
import { pinoArgs, plainError } from '../../../lib/pino-args.js';
import type { FromThread, JobSpec, LogLevel, ToThread } from './messages.js';
import { progressText } from '../progress-value.js';
import type { TraceCarrier } from '../../../telemetry/trace-context.js';

type Reply = Extract<ToThread, { type: 'reply' }>;

/** pino's call forms: `(obj, msg?, ...args)`, `(err, msg?)` and `(msg, ...args)`. */
export interface ThreadLogFn {
  (obj: object, msg?: string, ...args: unknown[]): void;
  (msg: string, ...args: unknown[]): void;
}

export type ThreadLogger = Record<LogLevel, ThreadLogFn> & {
  /** Adds bindings to every line of the returned logger. */
  child(bindings: Record<string, unknown>): ThreadLogger;
};

const LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

export class ThreadContext {
  readonly jobId: number;
  readonly name: string;
  readonly attempt: number;
  readonly slot: Date | undefined;
  readonly signal: AbortSignal;
  readonly log: ThreadLogger;
  /** The attempt's span as W3C fields, when the queue traces it (HandlerContext `trace`). */
  readonly trace: TraceCarrier | undefined;
  private readonly controller = new AbortController();
  private readonly pending = new Map<number, { resolve(value: boolean): void; reject(err: Error): void }>();
  private lastId = 0;
  private over = false;

  constructor(
    readonly seq: number,
    job: JobSpec,
    private readonly send: (m: FromThread) => void,
  ) {
    this.jobId = job.jobId;
    this.name = job.name;
    this.attempt = job.attempt;
    this.slot = job.slot === undefined ? undefined : new Date(job.slot);
    this.trace = job.trace;
    this.signal = this.controller.signal;
    this.log = makeLogger((level, obj, msg) => {
      if (!this.over) this.send({ type: 'log', seq, level, obj: obj && jsonSafe(obj), msg });
    }, undefined);
  }

  readonly heartbeat = async (): Promise<void> => {
    if (!(await this.call(undefined))) throw new LeaseLostError(this.jobId);
  };

  readonly progress = async (value: unknown): Promise<void> => {
    if (!(await this.call(progressText(value)))) throw new LeaseLostError(this.jobId);
  };

  readonly step = async (name: string, _fn?: () => unknown): Promise<never> => {
    throw new ValidationError(`ctx.step("${String(name)}"): durable steps are not available in a job with isolation 'thread'; run it on the main thread`);
  };

  readonly sleep = async (name: string, _duration?: unknown): Promise<never> => {
    throw new ValidationError(`ctx.sleep("${String(name)}"): durable steps are not available in a job with isolation 'thread'; run it on the main thread`);
  };

  readonly publish = async (key: string, _value?: unknown): Promise<never> => {
    throw new ValidationError(`ctx.publish("${String(key)}"): not available in a job with isolation 'thread'; run it on the main thread`);
  };

  readonly waitFor = async (topic: string, _options?: unknown): Promise<never> => {
    throw new ValidationError(`ctx.waitFor("${String(topic)}"): durable steps are not available in a job with isolation 'thread'; run it on the main thread`);
  };

  abort(reason: unknown): void {
    this.controller.abort(reason);
  }

  /** An answer from the main thread to a heartbeat or progress call. */
  settle(reply: Reply): void {
    const waiter = this.pending.get(reply.id);
    if (!waiter) return;
    this.pending.delete(reply.id);
    if (reply.ok) waiter.resolve(reply.value);
    else waiter.reject(fromErrorInfo(reply.error));
  }

  /** The handler settled: the main thread no longer listens for this job. */
  end(): void {
    this.over = true;
    // Left unsettled rather than rejected: a rejection nobody awaits would crash the thread.
    this.pending.clear();
  }

  /** Progress when `value` is a number, else a heartbeat. */
  private call(value: string | undefined): Promise<boolean> {
    if (this.over) return Promise.reject(new Error(`job ${this.jobId} has settled: ctx.heartbeat() and ctx.progress() no longer reach the queue`));
    const id = ++this.lastId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send(value === undefined ? { type: 'call', seq: this.seq, id, op: 'heartbeat' } : { type: 'call', seq: this.seq, id, op: 'progress', value });
    });
  }
}

function fromErrorInfo(info: ErrorInfo): Error {
  const err = new Error(info.message);
  err.name = info.name;
  if (info.code !== undefined) Object.assign(err, { code: info.code });
  return err;
}

type Emit = (level: LogLevel, obj: Record<string, unknown> | undefined, msg: string | undefined) => void;

function makeLogger(emit: Emit, bindings: Record<string, unknown> | undefined): ThreadLogger {
  const logger = {
    child: (more: Record<string, unknown>) => makeLogger(emit, { ...bindings, ...more }),
  } as ThreadLogger;
  for (const level of LEVELS) {
    logger[level] = (...args: unknown[]): void => {
      try {
        const [obj, msg] = pinoArgs(args);
        emit(level, bindings || obj ? { ...bindings, ...obj } : undefined, msg);
      } catch {
        // Logging never fails a handler.
      }
    };
  }
  return logger;
}

/** What survives the port and any log transport: errors become plain objects, BigInts strings. */
function jsonSafe(obj: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(obj, (_key, value: unknown) => (value instanceof Error ? plainError(value) : typeof value === 'bigint' ? value.toString() : value))) as Record<string, unknown>;
  } catch (err) {
    return { logError: `the log object is not JSON-serialisable: ${err instanceof Error ? err.message : String(err)}` };
  }
}
