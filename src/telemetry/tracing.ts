/**
 * Traces of jobs, after the OpenTelemetry semantic conventions for
 * messaging: a `send` span (PRODUCER) for each enqueue, whose context is
 * stored with the job (trace-context.ts), and a `process` span (CONSUMER) for
 * each attempt, a child of that context and linked to it, in whichever
 * process runs the attempt and however long after. The handler runs inside
 * its attempt's span, so the application's own spans nest under it.
 *
 * Off (without `@opentelemetry/api`, or with no SDK registered) every call
 * goes straight through: the check is one property read, nothing of
 * OpenTelemetry is loaded and nothing is allocated for a trace.
 */
import type { Attributes, Span, SpanContext } from '@opentelemetry/api';
import { JobState } from '../../machines/job.machine.js';
import type { ErrorInfo } from '../../machines/policy.js';
import { packageVersion } from '../lib/package-version.js';
import type { InsertResult, LeasedJob, NewJob } from '../store/store.js';
import { tracingApi, type Otel } from './otel-api.js';
import { parseTraceparent, readStoredContext, storedContext, toCarrier, type RemoteContext, type TraceCarrier } from './trace-context.js';
import { withRemote } from './remote-context.js';

export const MESSAGING_SYSTEM = 'litejobs';

/** What an enqueue call is, for its span. */
export interface SendInfo<R> {
  /** The call: `enqueue`, `enqueue_many`, `enqueue_flow`, `schedule` (`litejobs.enqueue.method`). */
  operation: string;
  /**
   * A trace of its own, whatever context is active: a schedule fires from a
   * timer that carries the context `start()` was called in, which is no
   * parent of its jobs.
   */
  root?: boolean;
  /** The jobs the insert answered with (created or found by their key), in the order given; null: none. */
  ids(result: R): ReadonlyArray<{ id: number; created: boolean }> | null;
}

/** SendInfo for an insert that answers InsertResult[]. */
export const inserted = (operation: string): SendInfo<InsertResult[]> => ({ operation, ids: (r) => r });

/** How an attempt ended, for its span. */
export interface AttemptEnd {
  /** The machine event the outcome became (`job.complete`, `job.fail`, …); undefined: nothing was written (a lost lease, a cancel). */
  event?: string;
  /** The state it led to, when the move committed. */
  to?: string;
  /** When the job runs again (a retry's backoff). */
  runAt?: number;
  error?: ErrorInfo;
  /** The run was stopped and nothing was written for it (`cancel`, `lease`). */
  aborted?: string;
  /** A RateLimitedError put the job back: flow control, not a failure (an event, the span not marked failed). */
  rateLimited?: { delay: number; scope: string };
}

/** Ids listed on a batch's send span at most (`messaging.batch.message_count` says how many there were). */
const MAX_LISTED_IDS = 100;

/** A span event's attributes (the API's Attributes, named here so that no public declaration needs the optional package). */
export type EventAttributes = Record<string, string | number | boolean | undefined>;

export interface AttemptSpan {
  /** Runs `fn` (the handler) inside the span. */
  run<T>(fn: () => T): T;
  /** The span's context as W3C fields: for a handler on a worker thread, or work handed elsewhere. */
  readonly carrier: TraceCarrier;
  /** A durable step as a child span, `fn` running inside it; a step already done (replayed) as an event. */
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
  event(name: string, attributes?: EventAttributes): void;
  end(outcome: AttemptEnd): void;
}

export interface Tracing {
  /** Whether spans are made now (an SDK is registered): the callers' fast path skips the wrappers when not. */
  active(): boolean;
  /** Runs an enqueue in a `send` span whose context each job stores; `jobs` are the rows about to be written. */
  send<R>(info: SendInfo<R>, jobs: readonly NewJob[], insert: () => Promise<R>): Promise<R>;
  /** `send` for an insert that answers at once (enqueueSync). */
  sendSync<R>(info: SendInfo<R>, jobs: readonly NewJob[], insert: () => R): R;
  /** The span of one attempt, started now; undefined when nothing traces. */
  attempt(job: LeasedJob, workerId: string): AttemptSpan | undefined;
  /**
   * Runs `fn` in the context a request's `traceparent` header names, when
   * tracing is on and nothing traces the request already (an HTTP
   * instrumentation would have made its span the active one).
   */
  incoming<T>(traceparent: unknown, tracestate: unknown, fn: () => T): T;
}

const OFF: Tracing = {
  active: () => false,
  send: (_info, _jobs, insert) => insert(),
  sendSync: (_info, _jobs, insert) => insert(),
  attempt: () => undefined,
  incoming: (_p, _s, fn) => fn(),
};

/**
 * The tracing of one queue: `enabled` false (the queue's `telemetry` option)
 * never touches OpenTelemetry. Enabled, each operation asks whether a tracer
 * provider is registered now (one property read, nothing loaded while none
 * is) and traces with the API once one is.
 */
export function createTracing(enabled: boolean): Tracing {
  if (!enabled) return OFF;
  let on: Tracing | undefined;
  const now = (): Tracing => {
    const api = tracingApi();
    if (!api) return OFF;
    on ??= tracingWith(api);
    return on;
  };
  return {
    active: () => tracingApi() !== undefined,
    send: (info, jobs, insert) => now().send(info, jobs, insert),
    sendSync: (info, jobs, insert) => now().sendSync(info, jobs, insert),
    attempt: (job, workerId) => now().attempt(job, workerId),
    incoming: (traceparent, tracestate, fn) => now().incoming(traceparent, tracestate, fn),
  };
}

/** Tracing through the API, a tracer provider being registered. */
function tracingWith(api: Otel): Tracing {
  // Asked per span: a provider registered again (tests, a reconfigured SDK) is the one used.
  const tracer = () => api.trace.getTracer('litejobs', packageVersion());

  const startSend = <R>(info: SendInfo<R>, jobs: readonly NewJob[]): Span => {
    const first = jobs[0];
    const sameName = first !== undefined && jobs.every((j) => j.name === first.name);
    const attributes: Attributes = {
      'messaging.system': MESSAGING_SYSTEM,
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'send',
      'litejobs.enqueue.method': info.operation,
    };
    if (sameName) attributes['messaging.destination.name'] = first.name;
    if (jobs.length !== 1) attributes['messaging.batch.message_count'] = jobs.length;
    else if (first) {
      if (first.key !== null) attributes['litejobs.job.key'] = first.key;
      if (first.unique) attributes[`litejobs.job.${first.unique.kind}_key`] = first.unique.key;
      if (first.group) attributes['litejobs.job.group'] = first.group;
      attributes['litejobs.job.priority'] = first.priority;
      // A LIFO job's stored run time is its place in line (engine/core/lifo.ts): it runs from now.
      attributes['litejobs.job.run_at'] = new Date(first.runAt < 0 ? Date.now() : first.runAt).toISOString();
    }
    // The conventions' span name: `{operation} {destination}`.
    const name = sameName ? `send ${first.name}` : 'send';
    const options = { kind: api.SpanKind.PRODUCER, attributes };
    const span = info.root ? tracer().startSpan(name, options, api.ROOT_CONTEXT) : tracer().startSpan(name, options);
    // A context that names no span (a no-op tracer behind a registered provider) is not worth storing.
    const sc = span.spanContext();
    if (api.trace.isSpanContextValid(sc)) {
      const stored = storedContext(contextOf(sc));
      for (const job of jobs) (job as { traceContext?: string | null }).traceContext = stored;
    }
    return span;
  };
  const endSend = <R>(span: Span, info: SendInfo<R>, result: R) => {
    const results = info.ids(result);
    if (results === null) span.setAttribute('litejobs.job.created', false);
    else if (results.length === 1) {
      span.setAttribute('messaging.message.id', String(results[0]!.id));
      if (!results[0]!.created) span.setAttribute('litejobs.job.created', false);
    } else {
      span.setAttribute('litejobs.job.ids', results.slice(0, MAX_LISTED_IDS).map((r) => String(r.id)));
    }
    span.end();
  };
  const failSend = (span: Span, err: unknown): never => {
    fail(api, span, err);
    span.end();
    throw err;
  };

  return {
    active: () => true,
    async send(info, jobs, insert) {
      if (jobs.length === 0) return insert();
      const span = startSend(info, jobs);
      try {
        const results = await insert();
        endSend(span, info, results);
        return results;
      } catch (err) {
        return failSend(span, err);
      }
    },
    sendSync(info, jobs, insert) {
      if (jobs.length === 0) return insert();
      const span = startSend(info, jobs);
      try {
        const results = insert();
        endSend(span, info, results);
        return results;
      } catch (err) {
        return failSend(span, err);
      }
    },
    attempt: (job, workerId) => startAttempt(api, tracer(), job, workerId),
    incoming(traceparent, tracestate, fn) {
      if (traceparent === undefined || api.trace.getSpan(api.context.active()) !== undefined) return fn();
      const remote = parseTraceparent(traceparent, tracestate);
      return remote ? api.context.with(withRemote(api, api.context.active(), remote), fn) : fn();
    },
  };
}

function contextOf(sc: SpanContext): RemoteContext {
  const out: RemoteContext = { traceId: sc.traceId, spanId: sc.spanId, traceFlags: sc.traceFlags };
  const state = sc.traceState?.serialize();
  if (state) out.traceState = state;
  return out;
}

/** Marks a span failed by `err` (an ErrorInfo or anything thrown). */
function fail(api: Otel, span: Span, err: unknown): void {
  const info = err as Partial<ErrorInfo> | null;
  const name = typeof info?.name === 'string' ? info.name : 'Error';
  const message = typeof info?.message === 'string' ? info.message : String(err);
  span.recordException({ name, message, ...(typeof info?.stack === 'string' ? { stack: info.stack } : {}), ...(typeof info?.code === 'string' ? { code: info.code } : {}) });
  span.setAttribute('error.type', typeof info?.code === 'string' ? info.code : name);
  span.setStatus({ code: api.SpanStatusCode.ERROR, message });
}

function startAttempt(api: Otel, tracer: ReturnType<Otel['trace']['getTracer']>, job: LeasedJob, workerId: string): AttemptSpan {
  const remote = readStoredContext(job.traceContext);
  const attributes: Attributes = {
    'messaging.system': MESSAGING_SYSTEM,
    'messaging.operation.type': 'process',
    'messaging.operation.name': 'process',
    'messaging.destination.name': job.name,
    'messaging.message.id': String(job.id),
    'litejobs.job.attempt': job.attempts,
    'litejobs.lease.owner': job.leaseOwner ?? workerId,
    'litejobs.worker.id': workerId,
  };
  if (job.group) attributes['litejobs.job.group'] = job.group;
  if (job.parentId != null) attributes['litejobs.job.parent_id'] = String(job.parentId);
  // The enqueue's context is the parent (one trace from the request to every attempt) and the link the conventions ask for.
  const parent = remote ? withRemote(api, api.ROOT_CONTEXT, remote) : api.ROOT_CONTEXT;
  const links = remote ? [{ context: api.trace.getSpanContext(parent)! }] : [];
  const span = tracer.startSpan(`process ${job.name}`, { kind: api.SpanKind.CONSUMER, attributes, links }, parent);
  const active = api.trace.setSpan(parent, span);
  let carrier: TraceCarrier | undefined;

  return {
    // Made when asked (a thread job, ctx.trace): most attempts never need it.
    get carrier() {
      carrier ??= toCarrier(contextOf(span.spanContext()));
      return carrier;
    },
    run: (fn) => api.context.with(active, fn),
    async step(name, fn) {
      const step = tracer.startSpan(`step ${name}`, { attributes: { 'litejobs.step.name': name } }, active);
      try {
        const value = await api.context.with(api.trace.setSpan(active, step), fn);
        step.end();
        return value;
      } catch (err) {
        fail(api, step, err);
        step.end();
        throw err;
      }
    },
    event: (name, attrs) => {
      span.addEvent(name, attrs);
    },
    end(outcome) {
      if (outcome.event !== undefined) span.setAttribute('litejobs.job.outcome', outcome.event);
      if (outcome.to !== undefined) span.setAttribute('litejobs.job.state', outcome.to);
      if (outcome.aborted !== undefined) span.setAttribute('litejobs.job.aborted', outcome.aborted);
      if (outcome.rateLimited) span.addEvent('litejobs.job.rate_limited', { 'litejobs.rate_limit.delay_ms': outcome.rateLimited.delay, 'litejobs.rate_limit.scope': outcome.rateLimited.scope });
      else if (outcome.error) fail(api, span, outcome.error);
      const error: Attributes = outcome.error ? { 'exception.type': outcome.error.name, 'exception.message': outcome.error.message } : {};
      if (outcome.to === JobState.failed) {
        span.addEvent('litejobs.job.retry', { ...error, ...(outcome.runAt === undefined ? {} : { 'litejobs.job.run_at': new Date(outcome.runAt).toISOString() }) });
      } else if (outcome.to === JobState.dead) {
        span.addEvent('litejobs.job.dead', error);
      }
      span.end();
    },
  };
}
