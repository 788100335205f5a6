/**
 * A job definition: a name, the handler that runs it, and its retry policy
 * (or a machine of the user's own built on the base one).
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { AnyStateMachine } from 'xstate';
import type { RetryPolicy } from '../../../machines/policy.js';
import type { Logger } from '../../lib/logger.js';
import type { Job } from './job-view.js';
import type { Duration } from '../../lib/duration.js';
import { checkInteger, checkRetryPolicy, checkString, rejectUnknownOptions } from '../../lib/validate.js';
import { resolveRetention, type JobRetention } from './retention.js';
import { ValidationError } from '../../errors.js';
import { checkJobSchedule, type JobSchedule } from './schedules.js';
import { checkJobLimits, type JobLimits } from './limits.js';
import { checkPayloadSchema } from './payload-schema.js';

/** What a handler gets besides its payload. */
export interface HandlerContext {
  jobId: number;
  name: string;
  /** 1 for the first run, 2 for the first retry, … */
  attempt: number;
  /**
   * A schedule's job: the cron slot it was made for, the same on every
   * attempt (tell a late or retried run from an on-time one by it). Undefined
   * for any other job.
   */
  slot: Date | undefined;
  /** Aborted on timeout, cancel, lost lease or shutdown: pass it to fetch() and friends. */
  signal: AbortSignal;
  /** Extends the lease now (the pool also renews it on its own while the handler runs). Throws LeaseLostError if lost. */
  heartbeat(): Promise<void>;
  /**
   * Records progress on the job: a number (0 to 100 is drawn as a bar) or
   * any JSON value of at most 8 KB (`{ done: 40, of: 200 }`). Every watcher
   * hears of each update (`watch()`, the live feed, the page,
   * `litejobs job <id> --follow`). Rejects with LeaseLostError once the
   * lease is lost, and with LJ_ERR_VALIDATION for what JSON cannot hold.
   */
  progress(value: unknown): Promise<void>;
  /**
   * A pino child logger bound to `{ queue, job, jobId, attempt, workerId }`.
   * Its lines (info and above; debug and trace when the logger's level
   * allows them) are also stored with the job: `queue.logs(id)`.
   */
  log: Logger;
  /** A flow parent's children (enqueueFlow, enqueueBatch), in id order, as getJob returns them: results, errors, states. Empty for a job without children. */
  children(): Promise<Job[]>;
  /** A flow parent's children counted by state, e.g. `{ completed: 9, dead: 1 }`: what an enqueueBatch's onComplete job reads. */
  childCounts(): Promise<Record<string, number>>;
  /**
   * A durable step: runs `fn` once and stores its result (JSON) with the job.
   * A later attempt gets the stored result back without calling `fn`. Names
   * must be stable across runs and used once per run (DuplicateStepError).
   * See docs/guides/durable-steps.md. Not available in `isolation: 'thread'` jobs.
   */
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
  /**
   * A durable sleep (a step too): parks the job in `sleeping` for `duration`
   * (ms or a string such as '5m') without holding a worker or spending an
   * attempt; the job runs again afterwards, replaying its completed steps.
   */
  sleep(name: string, duration: Duration): Promise<void>;
  /**
   * Waits for the next message to this job on `topic` (`queue.signal`),
   * or `null` once `timeout` (ms or a string such as '3d') has passed; no
   * timeout waits for as long as it takes. A durable step: while it waits the
   * job parks in `waiting-message`, holding no worker and spending no
   * attempt, and runs again from the top when the message comes, its
   * completed steps replayed; a message it received is replayed too, never
   * received twice. Messages sent before the wait are kept in the job's
   * mailbox and taken in order. See docs/guides/waiting-for-the-world.md. Not
   * available in `isolation: 'thread'` jobs.
   */
  waitFor<T = unknown>(topic: string, options?: { timeout?: Duration }): Promise<T | null>;
  /**
   * Publishes a value of this job under `key` (1 to 100 of `A-Z a-z 0-9 _ .
   * : -`; any JSON of at most 64 KB): the latest per key, kept with the job,
   * read or waited for by any process (`queue.published(id, key)`), and a
   * change every watcher reads (`watch()`, the live feed, the page, `litejobs
   * job`). Written under the run's lease: LeaseLostError once the job moved
   * on. Not available in `isolation: 'thread'` jobs.
   */
  publish(key: string, value: unknown): Promise<void>;
  /**
   * This attempt's span as W3C Trace Context fields, to carry the trace into
   * work done elsewhere (another service, another queue); undefined when
   * nothing traces the queue (see the tracing guide).
   */
  readonly trace: { traceparent: string; tracestate?: string } | undefined;
}

export type Handler<P = unknown, R = unknown> = (payload: P, ctx: HandlerContext) => Promise<R> | R;

/** Builds the job machine for a resolved policy: a machine of one's own on top of `createJobMachine`. */
export type JobMachineFactory = (policy: RetryPolicy | undefined) => AnyStateMachine;

/**
 * `P`: the payload the handler receives; `R`: its result; `N`: the name; `I`:
 * the payload `enqueue` takes, which differs from `P` only for a schema that
 * transforms (its input and output types).
 */
export interface JobDefinition<P = unknown, R = unknown, N extends string = string, I = P> extends JobLimits {
  name: N;
  /**
   * Validates every payload at enqueue, before anything is written: any
   * Standard Schema v1 (zod ≥ 3.24, valibot ≥ 1, arktype, …). The queue
   * stores the schema's output, so its transforms and defaults are what the
   * handler gets; a refused payload throws PayloadValidationError. With a
   * schema, `enqueue` takes its input type and the handler gets its output
   * type. See docs/guides/validated-payloads.md.
   */
  schema?: StandardSchemaV1<I, P>;
  /** Runs the job on the main thread. Required unless the job runs in a worker thread (`isolation: 'thread'`). */
  handler?: Handler<P, R>;
  /**
   * Where the handler runs. `'main'` (default): on the event loop, beside the
   * queue. `'thread'`: the module at `module` is loaded in a worker thread of
   * a bounded pool; CPU-bound work there cannot starve lease renewal, and a
   * timeout or cancel the handler ignores ends with the thread terminated.
   */
  isolation?: 'main' | 'thread';
  /**
   * The handler's module, for `isolation: 'thread'`: its default export (a
   * function, or a `defineJob` result) or its export named `handler`.
   * Typically `new URL('./resize.js', import.meta.url)`.
   */
  module?: URL | string;
  retry?: RetryPolicy;
  /** Milliseconds before the handler's signal aborts and the attempt fails with TimeoutError. */
  timeout?: number;
  /**
   * A machine of one's own, built on the base one (see machines/examples/).
   * Either a factory (gets the policy, so per-enqueue `retry` still works) or
   * a ready machine (then per-enqueue `retry` is refused).
   */
  machine?: AnyStateMachine | JobMachineFactory;
  /**
   * Enqueue this job on a cron schedule: stored in the database when a queue
   * defining the job starts, and fired by every started queue (one job per
   * slot, however many processes run). See docs/guides/scheduling.md.
   */
  schedule?: JobSchedule<I>;
  /**
   * How long this job's finished jobs are kept, per state, replacing the
   * queue's `retention` for the states named here: an age (`'7d'`), a count
   * (`{ count: 1000 }`: the newest 1,000 of that state), or both; `0` deletes
   * a job in the move that finishes it. Enforced by the processes that run
   * this job.
   */
  retention?: JobRetention;
}

/** A definition of any payload and result type, as a queue holds them. */
// biome-ignore lint/suspicious/noExplicitAny: handler payloads are contravariant; `unknown` would refuse every typed handler
export type AnyJobDefinition = JobDefinition<any, any, string, any>;

/**
 * A job's name and types without a handler, for a process that enqueues it
 * but does not run it (`declareJob`). Holds no behaviour: a queue never
 * claims a declared job.
 */
export interface JobDeclaration<P = unknown, R = unknown, N extends string = string> {
  readonly name: N;
  readonly declared: true;
  /** Validates every payload at enqueue, as a definition's `schema` does. */
  readonly schema?: StandardSchemaV1<P, unknown>;
  /** Types only (never set): the payload and result this job takes and gives. */
  readonly __types?: { payload: P; result: R };
}

// biome-ignore lint/suspicious/noExplicitAny: see AnyJobDefinition
export type AnyJobDeclaration = JobDeclaration<any, any, string>;

/** What `createQueue({ jobs })` takes: jobs this process runs, and jobs it only enqueues. */
export type AnyJob = AnyJobDefinition | AnyJobDeclaration;

/** True for a declaration (`declareJob`), false for a runnable definition (`defineJob`). */
export function isDeclaration(job: AnyJob): job is AnyJobDeclaration {
  return (job as { declared?: unknown }).declared === true;
}

const DEFINITION_KEYS = ['name', 'schema', 'handler', 'isolation', 'module', 'retry', 'timeout', 'machine', 'schedule', 'groupConcurrency', 'globalConcurrency', 'rateLimit', 'retention'] as const;

/**
 * @example
 * const resize = defineJob({ name: 'resize', isolation: 'thread', module: new URL('./resize.js', import.meta.url), timeout: 30_000 });
 * @example
 * const nightly = defineJob({ name: 'nightly-report', schedule: { cron: '30 2 * * *', tz: 'Europe/Berlin' }, handler: async () => buildReport() });
 * @example
 * // One sync per customer at a time, and at most 100 calls a second to the API.
 * const sync = defineJob({ name: 'sync-customer', groupConcurrency: 1, rateLimit: { max: 100, per: '1s' }, handler: async ({ id }) => api.sync(id) });
 * await queue.enqueue('sync-customer', { id: 42 }, { group: 'customer:42' });
 * @example
 * // Validated payloads: enqueue takes the schema's input, the handler gets its output.
 * const welcome = defineJob({
 *   name: 'welcome',
 *   schema: z.object({ to: z.string().email(), locale: z.string().default('en') }),
 *   handler: async ({ to, locale }) => mailer.send(to, locale),
 * });
 * @example
 * const sendEmail = defineJob({
 *   name: 'send-email',
 *   retry: { attempts: 5, backoff: { type: 'exponential', delay: 1000 } },
 *   timeout: 10_000,
 *   handler: async ({ to }: { to: string }, { signal }) => mailer.send(to, { signal }),
 * });
 */
export function defineJob<S extends StandardSchemaV1, R = unknown, N extends string = string>(
  definition: JobDefinition<StandardSchemaV1.InferOutput<S>, R, N, StandardSchemaV1.InferInput<S>> & { schema: S },
): JobDefinition<StandardSchemaV1.InferOutput<S>, R, N, StandardSchemaV1.InferInput<S>>;
export function defineJob<P = unknown, R = unknown, N extends string = string>(definition: JobDefinition<P, R, N>): JobDefinition<P, R, N>;
export function defineJob(definition: AnyJobDefinition): AnyJobDefinition {
  rejectUnknownOptions('defineJob', definition, DEFINITION_KEYS);
  checkString('defineJob name', definition.name, 200);
  if (definition.schema !== undefined) checkPayloadSchema(`job "${definition.name}"`, definition.schema);
  // Its shape only: what depends on the time (an end date passed) is checked when a queue saves it, on the queue's clock.
  if (definition.schedule !== undefined) checkJobSchedule(definition.name, definition.schedule, null);
  checkJobLimits(definition.name, definition);
  if (definition.retention !== undefined) resolveRetention(`job "${definition.name}" retention`, definition.retention);
  if (definition.isolation !== undefined && definition.isolation !== 'main' && definition.isolation !== 'thread') {
    throw new ValidationError(`job "${definition.name}": isolation must be "main" or "thread"`);
  }
  if (definition.isolation === 'thread') {
    const module = definition.module;
    const href = module instanceof URL ? module.href : typeof module === 'string' ? module : undefined;
    if (href === undefined || !/^(file|data):/.test(href)) {
      throw new ValidationError(`job "${definition.name}": a thread job needs module, a file URL (new URL('./handler.js', import.meta.url))`);
    }
    if (definition.handler !== undefined) throw new ValidationError(`job "${definition.name}": a thread job takes its handler from module, not handler`);
    return Object.freeze({ ...definition, module: href });
  }
  if (definition.module !== undefined) throw new ValidationError(`job "${definition.name}": module is for isolation: 'thread'`);
  if (typeof definition.handler !== 'function') throw new ValidationError(`job "${definition.name}": handler must be a function`);
  if (definition.retry !== undefined) checkRetryPolicy(`job "${definition.name}" retry`, definition.retry, false);
  if (definition.timeout !== undefined) checkInteger(`job "${definition.name}" timeout`, definition.timeout, 1);
  if (definition.machine !== undefined && typeof definition.machine !== 'function' && typeof definition.machine !== 'object') {
    throw new ValidationError(`job "${definition.name}": machine must be a state machine or a factory`);
  }
  return Object.freeze({ ...definition });
}

/**
 * Declares a job's name, payload and result types for a process that only
 * enqueues it (a producer): `createQueue({ jobs: [declareJob<Payload, Result>('resize')] })`.
 * Give the name as the third type argument as well to have unknown names
 * refused at compile time (explicit type arguments turn off inference of the
 * name): `declareJob<Payload, Result, 'resize'>('resize')`.
 *
 * With a schema (`declareJob(name, { schema })`) the producer validates each
 * payload as the definition would, and `enqueue` takes the schema's input
 * type; give the result type too with `declareJob<typeof schema, Result, 'resize'>`.
 *
 * @example
 * const resize = declareJob<{ url: string }, { width: number }, 'resize'>('resize');
 * const queue = createQueue({ path: './jobs.db', jobs: [resize] });
 * await queue.enqueue('resize', { url: 'https://example.com/cat.jpg' });
 * @example
 * const welcome = declareJob('welcome', { schema: z.object({ to: z.string().email() }) });
 */
export function declareJob<S extends StandardSchemaV1, R = unknown, N extends string = string>(name: N, options: { schema: S }): JobDeclaration<StandardSchemaV1.InferInput<S>, R, N>;
export function declareJob<P = unknown, R = unknown, N extends string = string>(name: N, options?: { schema?: StandardSchemaV1<P, unknown> }): JobDeclaration<P, R, N>;
export function declareJob(name: string, options?: { schema?: StandardSchemaV1 }): AnyJobDeclaration {
  checkString('declareJob name', name, 200);
  if (options === undefined) return Object.freeze({ name, declared: true as const });
  rejectUnknownOptions('declareJob options', options, ['schema']);
  if (options.schema === undefined) return Object.freeze({ name, declared: true as const });
  return Object.freeze({ name, declared: true as const, schema: checkPayloadSchema(`job "${name}"`, options.schema) });
}
