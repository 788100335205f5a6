/**
 * What litejobs' own add-ons (the dashboard) read behind a queue's public
 * face: its store, clock, logger, tracing and job definitions. Kept off the `Queue`
 * interface so that users see one small API; reached through `internalsOf`.
 */
import type { AnyJobDefinition } from './engine/core/job-definition.js';
import type { Clock } from './lib/clock.js';
import type { Logger } from './lib/logger.js';
import type { Store } from './store/store.js';
import type { Tracing } from './telemetry/tracing.js';

export interface QueueInternals {
  readonly store: Store;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The jobs this process defined (runs), by name. */
  readonly definitions: ReadonlyMap<string, AnyJobDefinition>;
  /** The names of the jobs it defines or declares. */
  readonly jobNames: ReadonlySet<string>;
  /** This process's lease owner id (`host:pid:random`). */
  readonly ownerId: string;
  /** The queue's traces (off: every call goes straight through). */
  readonly tracing: Tracing;
  /** True once `close()` was called. */
  closed(): boolean;
}

const registry = new WeakMap<object, QueueInternals>();

export function registerInternals(queue: object, internals: QueueInternals): void {
  registry.set(queue, internals);
}

/** The internals of a queue made by `createQueue`; a TypeError for anything else. */
export function internalsOf(queue: object): QueueInternals {
  const internals = registry.get(queue);
  if (!internals) throw new TypeError('expected a queue made by createQueue()');
  return internals;
}
