/**
 * The queue's metrics through the OpenTelemetry metrics API, for a collector
 * that takes OTLP rather than scraping `/metrics`. The same instruments, the
 * same attributes (and `queue`, the queue's name: the instruments are the
 * process's, shared by its queues, where each /metrics registry is one
 * queue's) and the same histogram buckets as the Prometheus registry
 * (http/metrics.ts); named so that a Prometheus exporter of the SDK gives the
 * same series names (`litejobs.wal` in `By` → `litejobs_wal_bytes`,
 * `litejobs.transitions` → `litejobs_transitions_total`).
 *
 * Registered when the queue is made, if a meter provider is registered by
 * then (the API has no proxy meter provider to pick one up later).
 */
import type { BatchObservableCallback, Observable } from '@opentelemetry/api';
import { OTHER_NAMES } from '../lib/name-bound.js';
import { packageVersion } from '../lib/package-version.js';
import type { QueueStats, StoreDiagnostics } from '../store/store.js';
import { metricsApi } from '../telemetry/otel-api.js';
import { CLAIM_BATCH_BUCKETS, ENQUEUE_TO_START_BUCKETS, HANDLER_DURATION_BUCKETS, observeQueue, type ObservedQueue } from './queue-observations.js';

/** What the metrics read of a queue (the Queue satisfies it): its events, and its counts and files at each collection. */
export interface MeteredQueue extends ObservedQueue {
  stats(): Promise<QueueStats & { otherNames?: { byState: Record<string, number> }; paused: { all: boolean; names: string[]; more?: number } }>;
  diagnose(): Promise<StoreDiagnostics>;
  /** This process's workers, each with its pool. */
  workers(): ReadonlyArray<{ pool: string; jobId: number | null }>;
}

/** Starts the queue's instruments; the returned function stops them (at `close`). Undefined: no API or no meter provider. */
export function startOtelMetrics(queue: MeteredQueue, queueName: string): (() => void) | undefined {
  const api = metricsApi();
  if (!api) return undefined;
  const meter = api.metrics.getMeter('litejobs', packageVersion());
  // Every queue of the process reports through the same instruments: `queue` (its `name` option) tells them apart.
  const q = { queue: queueName };

  const jobs = meter.createObservableGauge('litejobs.jobs', { description: 'Jobs in the store by state and name (all processes).', unit: '{job}' });
  const paused = meter.createObservableGauge('litejobs.paused', { description: '1 for each paused job name; name="*" when the whole queue is paused.' });
  const wal = meter.createObservableGauge('litejobs.wal', { description: 'Size of the SQLite write-ahead log.', unit: 'By' });
  const db = meter.createObservableGauge('litejobs.db', { description: 'Size of the SQLite database file.', unit: 'By' });
  const expired = meter.createObservableGauge('litejobs.expired_leases', { description: 'Processing jobs whose lease ran out.', unit: '{job}' });
  const poolWorkers = meter.createObservableGauge('litejobs.pool_workers', { description: "Worker slots of this process's pool, by pool." });
  const poolBusy = meter.createObservableGauge('litejobs.pool_busy', { description: "Workers of this process's pool running a job now, by pool." });
  const observables: Observable[] = [jobs, paused, wal, db, expired, poolWorkers, poolBusy];
  // One reading of each source per collection, shared by the gauges (stats() counts the whole table).
  const read: BatchObservableCallback = async (result) => {
    const [stats, diagnostics] = await Promise.all([queue.stats(), queue.diagnose()]);
    for (const [name, byState] of Object.entries(stats.byName)) {
      for (const [state, n] of Object.entries(byState)) result.observe(jobs, n, { queue: queueName, state, name });
    }
    // Names beyond those stats lists share one series per state: the attribute set stays bounded.
    for (const [state, n] of Object.entries(stats.otherNames?.byState ?? {})) result.observe(jobs, n, { queue: queueName, state, name: OTHER_NAMES });
    if (stats.paused.all) result.observe(paused, 1, { queue: queueName, name: '*' });
    for (const name of stats.paused.names) result.observe(paused, 1, { queue: queueName, name });
    if (stats.paused.more) result.observe(paused, stats.paused.more, { queue: queueName, name: OTHER_NAMES });
    result.observe(wal, diagnostics.walBytes, q);
    result.observe(db, diagnostics.fileBytes, q);
    result.observe(expired, diagnostics.expiredLeases, q);
    const byPool = new Map<string, { slots: number; busy: number }>();
    for (const w of queue.workers()) {
      const p = byPool.get(w.pool) ?? { slots: 0, busy: 0 };
      byPool.set(w.pool, { slots: p.slots + 1, busy: p.busy + (w.jobId === null ? 0 : 1) });
    }
    for (const [pool, { slots, busy }] of byPool) {
      result.observe(poolWorkers, slots, { queue: queueName, pool });
      result.observe(poolBusy, busy, { queue: queueName, pool });
    }
  };
  meter.addBatchObservableCallback(read, observables);

  const transitions = meter.createCounter('litejobs.transitions', { description: 'Transitions made by this process, by from and to state.', unit: '{transition}' });
  const duration = meter.createHistogram('litejobs.handler.duration', {
    description: 'Handler run time in this process, from claim to outcome, by job name and state entered.',
    unit: 's',
    advice: { explicitBucketBoundaries: HANDLER_DURATION_BUCKETS },
  });
  const lag = meter.createHistogram('litejobs.enqueue_to_start', {
    description: 'How long a job had been due when this process claimed it, by job name.',
    unit: 's',
    advice: { explicitBucketBoundaries: ENQUEUE_TO_START_BUCKETS },
  });
  const claims = meter.createHistogram('litejobs.claim.batch_size', {
    description: 'Jobs leased per claim transaction in this process.',
    unit: '{job}',
    advice: { explicitBucketBoundaries: CLAIM_BATCH_BUCKETS },
  });
  const stop = observeQueue(queue, {
    transition: (from, to) => transitions.add(1, { queue: queueName, from, to }),
    enqueueToStart: (name, seconds) => lag.record(seconds, { queue: queueName, name }),
    handlerDuration: (name, to, seconds) => duration.record(seconds, { queue: queueName, name, to }),
    claimBatch: (count) => claims.record(count, q),
  });
  return () => {
    stop();
    meter.removeBatchObservableCallback(read, observables);
  };
}
