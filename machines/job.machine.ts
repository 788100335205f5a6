/**
 * The job lifecycle. Every state a job row can hold is produced by this
 * machine; the store only persists what it decides.
 *
 *   pending ──job.claim──► processing ──job.complete──► completed
 *      ▲                      │ job.fail / job.expire
 *      │ after retryDelay     ├──(can retry)──► failed ──┘
 *      │                      └──(cannot)────► dead ──job.retry──► pending
 *   processing ──job.sleep──► sleeping ──after sleepDelay──► pending   (ctx.sleep: no attempt spent)
 *   processing ──job.wait──► waiting-message ──job.message──► pending   (ctx.waitFor: a message came, no attempt spent)
 *                                    └──after waitDelay──► pending   (its timeout)
 *   waiting-children ──job.children──► pending (every child finished)
 *                                  └──► dead (a child failed, onChildFailure 'fail')
 *   pending | processing | failed | sleeping | waiting-children | waiting-message ──job.cancel──► cancelled
 *   completed | cancelled ──job.rerun──► pending   (run again, with a fresh set of attempts)
 *   pending | failed | sleeping ──job.promote──► pending, due now   (skip the delay, the backoff or the sleep)
 *   pending ──job.update──► pending   (a new priority, run time or payload, given with the event)
 *
 * A flow's parent is created in `waiting-children` (it holds no worker); the
 * store delivers `job.children` in the transaction that finishes its last
 * child (or a failed one), following this machine's edges (flowRuleOf).
 *
 * Pure: imports xstate only.
 */
import { assign, setup, type AnyStateMachine } from 'xstate';
import { MachineCompileError } from './compile.js';
import {
  computeBackoff,
  isRetryableError,
  resolveRetryPolicy,
  type ErrorInfo,
  type ResolvedRetryPolicy,
  type RetryPolicy,
} from './policy.js';

/** The public state names. */
export const JobState = {
  pending: 'pending',
  processing: 'processing',
  completed: 'completed',
  failed: 'failed',
  dead: 'dead',
  cancelled: 'cancelled',
  /** Parked by `ctx.sleep`: no lease, no worker; back to pending when the sleep is over. */
  sleeping: 'sleeping',
  /** A flow's parent, until its children have finished. */
  waitingChildren: 'waiting-children',
  /** Parked by `ctx.waitFor`: no lease, no worker; back to pending when a message on its topic comes, or at its timeout. */
  waitingMessage: 'waiting-message',
} as const;
export type JobState = (typeof JobState)[keyof typeof JobState];

/** States in which a job will never run again on its own. */
export const FINISHED_STATES: readonly string[] = [JobState.completed, JobState.dead, JobState.cancelled];

/** The context persisted with each job (columns `attempts`, `last_error`; extra keys in `ctx`). */
export interface JobMachineContext {
  /** Attempts spent so far. */
  attempts: number;
  lastError: ErrorInfo | null;
  /** Decided when an attempt fails: how long `failed` waits before `pending`. */
  retryDelay: number;
  /** RetryLaterErrors in a row so far (bounded by the policy's maxRetryLater). */
  retryLaters: number;
  [extra: string]: unknown;
}

/** @deprecated The job machine's context is `JobMachineContext` (a handler's `ctx` is a `HandlerContext`). */
export type JobContext = JobMachineContext;

export const BASE_CONTEXT_KEYS: readonly string[] = ['attempts', 'lastError', 'retryDelay', 'retryLaters'];

export type JobEvent =
  | { type: 'job.claim' }
  | { type: 'job.complete' }
  /** `random` in [0, 1) is drawn by the runtime so that jitter keeps the machine deterministic. */
  | { type: 'job.fail'; error: ErrorInfo; random: number }
  | { type: 'job.expire'; error: ErrorInfo; random: number }
  /** Back to waiting without spending the attempt; `error`, when a rate limit put it back, goes to its history. */
  | { type: 'job.release'; error?: ErrorInfo }
  /** `ctx.sleep`: park for `delay` ms without spending the attempt. */
  | { type: 'job.sleep'; delay: number }
  /** `ctx.waitFor`: park until a message on `topic` comes (`job.message`), or for `delay` ms at most, without spending the attempt. */
  | { type: 'job.wait'; topic: string; delay: number }
  /** A message came for the topic a waiting job waits on (`queue.signal`). */
  | { type: 'job.message' }
  /** A parent's children have finished (`failed: false`), or one failed (`failed: true`, with its error). */
  | { type: 'job.children'; failed: boolean; error?: ErrorInfo }
  | { type: 'job.cancel' }
  | { type: 'job.retry' }
  /** Run a completed or cancelled job again. */
  | { type: 'job.rerun' }
  /** Make a job waiting for its time (a delay, a retry's backoff, a sleep) due now. */
  | { type: 'job.promote' }
  /** Change a pending job's priority, run time or payload (the queue writes them with the move). */
  | { type: 'job.update' };

export const JobEventType = {
  claim: 'job.claim',
  complete: 'job.complete',
  fail: 'job.fail',
  expire: 'job.expire',
  release: 'job.release',
  sleep: 'job.sleep',
  wait: 'job.wait',
  message: 'job.message',
  children: 'job.children',
  cancel: 'job.cancel',
  retry: 'job.retry',
  rerun: 'job.rerun',
  promote: 'job.promote',
  update: 'job.update',
} as const;

/**
 * Events only the runtime sends: they carry facts a caller cannot vouch for
 * (a lease was taken, a handler finished, a lease ran out). `queue.send`
 * refuses them; `job.cancel`, `job.retry` and a custom machine's own events
 * are the caller's.
 */
export const RUNTIME_EVENTS: readonly string[] = [
  JobEventType.claim,
  JobEventType.complete,
  JobEventType.fail,
  JobEventType.expire,
  JobEventType.release,
  JobEventType.sleep,
  JobEventType.wait,
  JobEventType.message,
  JobEventType.children,
];

/** Extra states, transitions and implementations layered on the base machine. */
export interface JobMachineExtension {
  /** States added beside the base ones (their names become valid job states). */
  states?: Record<string, unknown>;
  /**
   * Transitions placed in front of a base state's own for an event: the
   * extension's candidates are tried first, then the base ones.
   */
  on?: Partial<Record<JobState, Record<string, unknown>>>;
  guards?: Record<string, (args: { context: JobMachineContext; event: { type: string } & Record<string, unknown> }) => boolean>;
  actions?: Record<string, unknown>;
  delays?: Record<string, (args: { context: JobMachineContext; event: { type: string } }) => number>;
}

function errorOf(event: JobEvent): ErrorInfo {
  return 'error' in event && event.error ? event.error : { name: 'Error', message: 'unknown error' };
}

/** RetryLaterErrors in a row so far (absent from a fresh context). */
function retryLatersOf(context: JobMachineContext): number {
  return typeof context.retryLaters === 'number' ? context.retryLaters : 0;
}

function randomOf(event: JobEvent): number {
  return 'random' in event ? event.random : 0;
}

/** The base machine's implementations, closed over one resolved policy. */
function baseImplementations(policy: ResolvedRetryPolicy) {
  return {
    guards: {
      /** The handler asked to be retried later (`RetryLaterError`), and has not asked too often in a row. */
      wantsRetryLater: ({ context, event }: { context: JobMachineContext; event: JobEvent }) => {
        const e = errorOf(event);
        return e.retryAfter !== undefined && !e.unrecoverable && retryLatersOf(context) < policy.maxRetryLater;
      },
      /** Attempts remain and the policy retries this error. */
      canRetry: ({ context, event }: { context: JobMachineContext; event: JobEvent }) =>
        context.attempts < policy.attempts && isRetryableError(policy, errorOf(event)),
      /** A child ended without completing and the parent's policy is to fail with it. */
      childFailed: ({ event }: { event: JobEvent }) => event.type === 'job.children' && event.failed,
    },
    actions: {
      startAttempt: assign(({ context }: { context: JobMachineContext }) => ({ attempts: context.attempts + 1 })),
      refundAttempt: assign(({ context }: { context: JobMachineContext }) => ({ attempts: Math.max(0, context.attempts - 1) })),
      recordError: assign(({ event }: { event: JobEvent }) => ({ lastError: errorOf(event) })),
      scheduleRetry: assign(({ context, event }: { context: JobMachineContext; event: JobEvent }) => ({
        retryDelay: computeBackoff(policy, context.attempts, errorOf(event), randomOf(event)),
      })),
      delayAsAsked: assign(({ context, event }: { context: JobMachineContext; event: JobEvent }) => ({
        retryDelay: Math.min(policy.maxDelay, Math.max(0, Math.round(errorOf(event).retryAfter ?? 0))),
        retryLaters: retryLatersOf(context) + 1,
      })),
      /** Any other outcome of an attempt ends a run of RetryLaterErrors. */
      endRetryLaters: assign(() => ({ retryLaters: 0 })),
      resetAttempts: assign(() => ({ attempts: 0, retryDelay: 0, retryLaters: 0 })),
      /** How long `sleeping` lasts (a sleep is not an attempt: refundAttempt runs with it). */
      scheduleWake: assign(({ event }: { event: JobEvent }) => ({
        sleepDelay: event.type === 'job.sleep' && Number.isFinite(event.delay) ? Math.max(0, Math.round(event.delay)) : 0,
      })),
      /** What `waiting-message` waits for: the topic (read by queue.signal), and how long at most. */
      awaitMessage: assign(({ event }: { event: JobEvent }) => ({
        waitTopic: event.type === 'job.wait' ? event.topic : null,
        waitDelay: event.type === 'job.wait' && Number.isFinite(event.delay) ? Math.max(0, Math.round(event.delay)) : 0,
      })),
    },
    delays: {
      retryDelay: ({ context }: { context: JobMachineContext }) => context.retryDelay,
      sleepDelay: ({ context }: { context: JobMachineContext }) => (typeof context.sleepDelay === 'number' ? context.sleepDelay : 0),
      waitDelay: ({ context }: { context: JobMachineContext }) => (typeof context.waitDelay === 'number' ? context.waitDelay : 0),
    },
  };
}

function baseStates() {
  return {
    pending: {
      on: {
        'job.claim': { target: 'processing', actions: 'startAttempt' },
        'job.cancel': { target: 'cancelled' },
        // Due now: the queue writes run_at = now for any move into pending.
        'job.promote': { target: 'pending' },
        // The new fields come with the event's write (queue.update); the state stays.
        'job.update': { target: 'pending' },
      },
    },
    processing: {
      on: {
        'job.complete': { target: 'completed' },
        'job.fail': [
          { guard: 'wantsRetryLater', target: 'failed', actions: ['recordError', 'refundAttempt', 'delayAsAsked'] },
          { guard: 'canRetry', target: 'failed', actions: ['recordError', 'scheduleRetry', 'endRetryLaters'] },
          { target: 'dead', actions: ['recordError', 'endRetryLaters'] },
        ],
        'job.expire': [
          { guard: 'canRetry', target: 'failed', actions: ['recordError', 'scheduleRetry'] },
          { target: 'dead', actions: 'recordError' },
        ],
        'job.release': { target: 'pending', actions: 'refundAttempt' },
        'job.sleep': { target: 'sleeping', actions: ['refundAttempt', 'scheduleWake'] },
        'job.wait': { target: 'waiting-message', actions: ['refundAttempt', 'awaitMessage'] },
        'job.cancel': { target: 'cancelled' },
      },
    },
    sleeping: {
      after: { sleepDelay: { target: 'pending' } },
      on: { 'job.cancel': { target: 'cancelled' }, 'job.promote': { target: 'pending' } },
    },
    // No promote: a waiting job wakes by a message or by its timeout, nothing else.
    'waiting-message': {
      after: { waitDelay: { target: 'pending' } },
      on: { 'job.message': { target: 'pending' }, 'job.cancel': { target: 'cancelled' } },
    },
    'waiting-children': {
      on: {
        'job.children': [{ guard: 'childFailed', target: 'dead', actions: 'recordError' }, { target: 'pending' }],
        'job.cancel': { target: 'cancelled' },
      },
    },
    failed: {
      after: { retryDelay: { target: 'pending' } },
      on: { 'job.cancel': { target: 'cancelled' }, 'job.promote': { target: 'pending' } },
    },
    dead: {
      on: { 'job.retry': { target: 'pending', actions: 'resetAttempts' } },
    },
    // Finished: nothing takes a job out on its own; a caller may run it again.
    completed: { on: { 'job.rerun': { target: 'pending', actions: 'resetAttempts' } } },
    cancelled: { on: { 'job.rerun': { target: 'pending', actions: 'resetAttempts' } } },
  } as Record<string, { on?: Record<string, unknown>; after?: unknown; type?: string }>;
}

function toList(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * Builds the job machine for one retry policy, optionally extended with
 * states, transitions and implementations of the user's own.
 *
 * @example
 * const machine = createJobMachine({ attempts: 5, backoff: { type: 'exponential', delay: 500 } });
 */
export function createJobMachine(policy?: RetryPolicy, extension: JobMachineExtension = {}): AnyStateMachine {
  const resolved = resolveRetryPolicy(policy);
  const impl = baseImplementations(resolved);
  const states = baseStates();
  for (const [stateName, extraOn] of Object.entries(extension.on ?? {})) {
    // Own keys only: a state named `constructor` or `toString` is not Object.prototype's.
    const state = Object.hasOwn(states, stateName) ? states[stateName] : undefined;
    if (!state) throw new MachineCompileError(`extension.on names unknown base state "${stateName}"`);
    const on: Record<string, unknown> = { ...(state.on ?? {}) };
    for (const [eventType, transitions] of Object.entries(extraOn ?? {})) {
      on[eventType] = [...toList(transitions), ...toList(on[eventType])];
    }
    state.on = on;
  }
  for (const [name, config] of Object.entries(extension.states ?? {})) {
    if (Object.hasOwn(states, name)) throw new MachineCompileError(`extension.states redefines base state "${name}"`);
    states[name] = config as { on?: Record<string, unknown> };
  }
  const context: JobMachineContext = { attempts: 0, lastError: null, retryDelay: 0, retryLaters: 0 };
  // The merged config is dynamic, so it is typed loosely; the compiled table
  // and its property test are what check it.
  return setup({
    types: {} as { context: JobMachineContext; events: JobEvent },
    guards: { ...impl.guards, ...(extension.guards ?? {}) } as never,
    actions: { ...impl.actions, ...(extension.actions ?? {}) } as never,
    delays: { ...impl.delays, ...(extension.delays ?? {}) } as never,
  }).createMachine({
    id: 'job',
    initial: 'pending',
    context,
    states: states as never,
  }) as unknown as AnyStateMachine;
}
