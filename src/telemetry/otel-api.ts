/**
 * `@opentelemetry/api`, when the application has it and has registered an
 * SDK: an optional peer dependency, never imported statically. The API keeps
 * what an SDK registers under one well-known global symbol (per major
 * version), so whether a tracer or meter provider is registered is read there
 * first, with no package loaded: without an SDK (or without the package)
 * litejobs loads nothing of OpenTelemetry. Once one is registered, the
 * package is loaded, once; this copy then sees the providers the application
 * registered through its own import of it (an ESM build beside this one).
 */
import { createRequire } from 'node:module';
import type * as OtelApi from '@opentelemetry/api';

export type Otel = typeof OtelApi;

/** Where API 1.x keeps its registered globals (`@opentelemetry/api` internal/global-utils). */
const GLOBALS = Symbol.for('opentelemetry.js.api.1');
type Registered = Partial<Record<'trace' | 'metrics' | 'context', unknown>>;

let loaded: Otel | null | undefined;

/** The API, or undefined when the package is not installed where litejobs is. */
export function otelApi(): Otel | undefined {
  if (loaded === undefined) {
    try {
      loaded = createRequire(import.meta.url)('@opentelemetry/api') as Otel;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}

function registered(): Registered | undefined {
  return (globalThis as { [GLOBALS]?: Registered })[GLOBALS];
}

/**
 * The API when a tracer provider is registered (an SDK was started), else
 * undefined. Asked on each traced operation, so that a queue made before
 * the SDK started traces once it has: one property read while there is none.
 */
export function tracingApi(): Otel | undefined {
  return registered()?.trace === undefined ? undefined : otelApi();
}

/** The API when a meter provider is registered, else undefined. */
export function metricsApi(): Otel | undefined {
  return registered()?.metrics === undefined ? undefined : otelApi();
}

/** The API when a context manager is registered (without one, running in a context changes nothing). */
export function contextApi(): Otel | undefined {
  return registered()?.context === undefined ? undefined : otelApi();
}
