/**
 * A span's context as W3C Trace Context carries it (https://www.w3.org/TR/trace-context/):
 * the `traceparent` and `tracestate` fields, as HTTP headers and as a job's
 * stored `trace_context` (JSON text of the two fields). Written and read here
 * rather than through the registered propagator: a job's trace must survive
 * whatever propagators the enqueuing and the working process happen to
 * register, and W3C is the format every tracing backend reads.
 */

/** The fields of a span context the format carries (the API's SpanContext has these names). */
export interface RemoteContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  /** The raw `tracestate` list, when there is one. */
  traceState?: string;
}

export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZEROS = /^0+$/;
/** tracestate: at most 32 members of at most 256 characters each; longer is dropped rather than cut. */
const MAX_TRACESTATE = 32 * 257;

export function formatTraceparent(c: RemoteContext): string {
  return `00-${c.traceId}-${c.spanId}-${(c.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * A `traceparent` value, or undefined when it is not one (the spec's rules:
 * version ff is invalid, version 00 has exactly four fields, a later version
 * may add fields after them; ids of all zeros are invalid).
 */
export function parseTraceparent(value: unknown, tracestate?: unknown): RemoteContext | undefined {
  if (typeof value !== 'string' || value.length > 512) return undefined;
  const m = TRACEPARENT.exec(value.trim());
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (ZEROS.test(traceId) || ZEROS.test(spanId)) return undefined;
  const out: RemoteContext = { traceId, spanId, traceFlags: Number.parseInt(flags, 16) };
  if (typeof tracestate === 'string' && tracestate.trim() !== '' && tracestate.length <= MAX_TRACESTATE) out.traceState = tracestate.trim();
  return out;
}

export function toCarrier(c: RemoteContext): TraceCarrier {
  const carrier: TraceCarrier = { traceparent: formatTraceparent(c) };
  if (c.traceState) carrier.tracestate = c.traceState;
  return carrier;
}

/** The JSON text a job stores for this context. */
export function storedContext(c: RemoteContext): string {
  return JSON.stringify(toCarrier(c));
}

/** A job's stored context, or undefined when it has none or it is not one (never throws). */
export function readStoredContext(text: string | null | undefined): RemoteContext | undefined {
  if (!text) return undefined;
  try {
    const carrier = JSON.parse(text) as Partial<TraceCarrier> | null;
    return parseTraceparent(carrier?.traceparent, carrier?.tracestate);
  } catch {
    return undefined;
  }
}
