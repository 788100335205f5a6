/**
 * The OpenTelemetry SDK registered for a test, as an application registers
 * it: a tracer provider whose finished spans land in memory, the async-hooks
 * context manager, and (for metrics) a meter provider read on demand.
 * Unregistered after each test, so that other tests run with no SDK.
 */
import { context, metrics, trace, type SpanContext } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach } from 'vitest';
import { waitFor } from './wait.js';

export interface Traces {
  /** Spans ended so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** The ended spans named `name`. */
  named(name: string): ReadableSpan[];
  /** The one ended span named `name` (throws when there are none or several). */
  one(name: string): ReadableSpan;
  /** The ended spans named `name`, once there are at least `n` (within 20 s; the message lists what did end). */
  ended(name: string, n: number): Promise<ReadableSpan[]>;
}

/** Registers a tracer provider for each test of the file (call at the top level). */
export function useTraces(): Traces {
  let exporter: InMemorySpanExporter | undefined;
  let provider: BasicTracerProvider | undefined;
  const register = () => {
    exporter = new InMemorySpanExporter();
    provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(provider);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  };
  afterEach(async () => {
    await provider?.shutdown();
    trace.disable();
    context.disable();
    exporter = undefined;
    provider = undefined;
  });
  const spans = () => {
    if (!exporter) register();
    return exporter!.getFinishedSpans();
  };
  const named = (name: string) => spans().filter((s) => s.name === name);
  return {
    spans,
    named,
    async ended(name, n) {
      try {
        await waitFor(() => named(name).length >= n, 20_000);
      } catch {
        throw new Error(`${n} spans "${name}" not ended within 20 s; ended: ${spans().map((s) => s.name).join(', ') || 'none'}`);
      }
      return named(name);
    },
    one(name) {
      const found = spans().filter((s) => s.name === name);
      if (found.length !== 1) throw new Error(`expected one span "${name}", found ${found.length}: ${spans().map((s) => s.name).join(', ')}`);
      return found[0]!;
    },
  };
}

/** Registers the tracer provider now (before the queue is made); returns `traces`. */
export function registered(traces: Traces): Traces {
  traces.spans();
  return traces;
}

/** The span's parent span id (the SDK 2 field), or undefined for a root. */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

export function sameTrace(a: SpanContext, b: SpanContext): boolean {
  return a.traceId === b.traceId;
}

/** A reader that collects when the test asks, never on a timer. */
class OnDemandReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

export interface Meters {
  /** Collects every instrument now. */
  collect(): Promise<ResourceMetrics>;
}

/** Registers a meter provider before each use; unregistered after each test. */
export function useMeters(): { register(): Meters } {
  let provider: MeterProvider | undefined;
  afterEach(async () => {
    await provider?.shutdown();
    metrics.disable();
    provider = undefined;
  });
  return {
    register() {
      const reader = new OnDemandReader();
      provider = new MeterProvider({ readers: [reader] });
      metrics.setGlobalMeterProvider(provider);
      return {
        async collect() {
          const { resourceMetrics, errors } = await reader.collect();
          if (errors.length > 0) throw errors[0];
          return resourceMetrics;
        },
      };
    },
  };
}
