/**
 * A webhook delivery as an HTTP client span (the OpenTelemetry HTTP
 * conventions), a child of the attempt that sends it, whose context goes to
 * the receiver in the `traceparent` header: the receiver's spans join the
 * job's trace. Made only inside a traced attempt; otherwise nothing is loaded
 * and the request goes out as it was.
 */
import { channel } from 'node:diagnostics_channel';
import type { Attributes, Span } from '@opentelemetry/api';
import { packageVersion } from '../lib/package-version.js';
import { tracingApi, type Otel } from './otel-api.js';
import { formatTraceparent } from './trace-context.js';

export interface ClientSpan {
  /** The request's headers with the span's `traceparent` (and `tracestate`) in place of any the payload set. */
  readonly headers: Record<string, string>;
  /** The answer's status; 4xx and 5xx mark the span failed, as the conventions ask of a client. */
  answered(status: number): void;
  /** No answer: the error's code (or name) is the span's `error.type`. */
  failed(err: unknown): void;
}

/** Where undici announces each request: an undici instrumentation (the SDK's auto-instrumentations) listens here. */
const undiciRequests = channel('undici:request:create');

/**
 * The span of one request, or undefined when there is no traced attempt
 * around it (`traced` false, no API, or no active span), or when an undici
 * instrumentation makes the request's span itself (a span and `traceparent`
 * of its own, under the attempt: a second one would send the receiver two).
 */
export function startClientSpan(traced: boolean, method: string, url: URL, headers: Record<string, string>): ClientSpan | undefined {
  const api = traced && !undiciRequests.hasSubscribers ? tracingApi() : undefined;
  if (!api) return undefined;
  const parent = api.context.active();
  if (api.trace.getSpan(parent) === undefined) return undefined;
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const attributes: Attributes = {
    'http.request.method': method,
    // The path and query often hold the hook's secret (as the delivery's own errors, only the origin is shown).
    'url.full': `${url.origin}/${url.pathname === '/' && url.search === '' && url.hash === '' ? '' : 'REDACTED'}`,
    'url.scheme': url.protocol.slice(0, -1),
    'server.address': url.hostname,
    'server.port': port,
  };
  const span = api.trace.getTracer('litejobs', packageVersion()).startSpan(method, { kind: api.SpanKind.CLIENT, attributes }, parent);
  const sc = span.spanContext();
  const sent: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!/^trace(parent|state)$/i.test(name)) sent[name] = value;
  }
  sent.traceparent = formatTraceparent({ traceId: sc.traceId, spanId: sc.spanId, traceFlags: sc.traceFlags });
  const state = sc.traceState?.serialize();
  if (state) sent.tracestate = state;
  return {
    headers: sent,
    answered(status) {
      span.setAttribute('http.response.status_code', status);
      if (status >= 400) failed(api, span, String(status), `answered ${status}`);
      span.end();
    },
    failed(err) {
      const code = (err as { code?: unknown } | null)?.code;
      const name = err instanceof Error ? err.name : 'Error';
      failed(api, span, typeof code === 'string' ? code : name, err instanceof Error ? err.message : String(err));
      span.end();
    },
  };
}

function failed(api: Otel, span: Span, type: string, message: string): void {
  span.setAttribute('error.type', type);
  span.setStatus({ code: api.SpanStatusCode.ERROR, message });
}
