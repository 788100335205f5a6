/**
 * A context whose parent is a span of another process or thread, named by
 * W3C Trace Context fields. Kept apart from tracing.ts so that a handler
 * thread loads only this (and the API, only when it was handed a trace).
 */
import type { Context, SpanContext } from '@opentelemetry/api';
import { contextApi, type Otel } from './otel-api.js';
import { parseTraceparent, type RemoteContext, type TraceCarrier } from './trace-context.js';

export function withRemote(api: Otel, ctx: Context, remote: RemoteContext): Context {
  const sc: SpanContext = { traceId: remote.traceId, spanId: remote.spanId, traceFlags: remote.traceFlags, isRemote: true };
  if (remote.traceState) sc.traceState = api.createTraceState(remote.traceState);
  return api.trace.setSpanContext(ctx, sc);
}

/**
 * Runs `fn` as a child of the span `carrier` names (an attempt traced on the
 * main thread, run here on a worker thread), so that spans the handler makes
 * under an SDK registered in this thread join the job's trace. Without a
 * carrier, or with no context manager registered in this thread, nothing is
 * loaded.
 */
export function inTraceOf<T>(carrier: TraceCarrier | undefined, fn: () => T): T {
  const api = carrier ? contextApi() : undefined;
  const remote = api && parseTraceparent(carrier!.traceparent, carrier!.tracestate);
  return api && remote ? api.context.with(withRemote(api, api.ROOT_CONTEXT, remote), fn) : fn();
}

