/**
 * What a queue's own events tell its metrics: every transition this process
 * made, how long each job had been due when it was claimed, each run's time
 * from claim to outcome, and each claim's size. One reading shared by the
 * Prometheus registry (`/metrics`) and the OpenTelemetry meter, so the two
 * report the same figures.
 */
import type { Subscription } from 'rxjs';
import type { Observable } from 'rxjs';
import type { ClaimBatchEvent, QueueEvent } from '../engine/core/events.js';

/** What the observations read of a queue: its events and claims (the Queue satisfies it). */
export interface ObservedQueue {
  readonly events$: Observable<QueueEvent>;
  readonly claims$: Observable<ClaimBatchEvent>;
}

export interface QueueObserver {
  transition(from: string, to: string): void;
  /** A claim: the job had been due `seconds`. */
  enqueueToStart(name: string, seconds: number): void;
  /** A run ended in state `to`, `seconds` after its claim. */
  handlerDuration(name: string, to: string, seconds: number): void;
  claimBatch(count: number): void;
}

/** Starts of runs in this process, bounded: a run settled by another process (cancelled there) never reports here. */
const MAX_STARTS = 100_000;

/** Feeds `observer` from the queue's events until the returned function is called. */
export function observeQueue(queue: ObservedQueue, observer: QueueObserver): () => void {
  const starts = new Map<number, number>();
  const events: Subscription = queue.events$.subscribe((e) => {
    if (e.type === 'run:stuck') return;
    observer.transition(e.from ?? 'none', e.to);
    const at = e.at.getTime();
    if (e.waitedMs !== undefined) {
      observer.enqueueToStart(e.job.name, e.waitedMs / 1000);
      starts.set(e.job.id, at);
      if (starts.size > MAX_STARTS) starts.delete(starts.keys().next().value as number);
      return;
    }
    const started = starts.get(e.job.id);
    if (started !== undefined) {
      starts.delete(e.job.id);
      observer.handlerDuration(e.job.name, e.to, (at - started) / 1000);
    }
  });
  const claims = queue.claims$.subscribe((e) => observer.claimBatch(e.count));
  return () => {
    events.unsubscribe();
    claims.unsubscribe();
  };
}

/** Bucket bounds, seconds, of the two duration histograms (both exporters use the same). */
export const HANDLER_DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60, 300];
export const ENQUEUE_TO_START_BUCKETS = [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 300];
export const CLAIM_BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/** A read shared by every caller until it settles and the collection that asked for it has moved on. */
export function perCollection<T>(read: () => Promise<T>): () => Promise<T> {
  let reading: Promise<T> | undefined;
  return () => {
    reading ??= read().finally(() => setImmediate(() => (reading = undefined)));
    return reading;
  };
}
