/**
 * The dashboard's charts of the last hour, kept in memory: attempts completed
 * and failed per second, wait-time percentiles per 10 s, pending jobs per name
 * per 10 s. Fed by the change feed's batches; `rebuild()` fills the hour
 * before from the history once, at start.
 */
import { JobEventType, JobState } from '../../machines/job.machine.js';
import { nameRecord } from '../lib/name-record.js';
import { listedNames, NAMES_LISTED, OTHER_NAMES } from '../lib/name-bound.js';
import type { ChangeBatch, ChangeCursor, Store } from '../store/store.js';
import { BucketRing, backlogBackwards, HOUR_MS, newHistogram, quantile, record, type Histogram, type PendingDelta } from './series-buckets.js';

export const THROUGHPUT_STEP = 1000;
export const LATENCY_STEP = 10_000;
export const BACKLOG_STEP = 10_000;

export interface SeriesView {
  throughput: { step: number; end: number; completed: number[]; failed: number[] };
  latency: { step: number; end: number; p50: Array<number | null>; p99: Array<number | null> };
  backlog: { step: number; end: number; names: Record<string, number[]> };
  /**
   * When the data begins (ms): an hour ago when the queue had changes before
   * that, else its first change or the start of the live feed. Before it the
   * zeros are not "nothing happened" but "nothing existed", and are not drawn.
   */
  since: number;
}

/** An attempt that ended in an error, whatever state it led to (a retry, dead). */
const FAILED_EVENTS = new Set<string>([JobEventType.fail, JobEventType.expire]);

/** What the series take from a batch: a subset of ChangeBatch. */
export type SeriesInput = Pick<ChangeBatch, 'transitions' | 'enqueued' | 'latency'>;

/** The changes of pending jobs per name a batch holds (creations, moves into and out of pending). */
export function pendingDeltas(batch: Pick<ChangeBatch, 'transitions' | 'enqueued'>): PendingDelta[] {
  const out: PendingDelta[] = [];
  for (const e of batch.enqueued) if ((e.state ?? JobState.pending) === JobState.pending) out.push({ at: e.second * 1000, name: e.name, delta: e.count });
  for (const t of batch.transitions) {
    if (t.name === null) continue;
    const delta = (t.to === JobState.pending ? t.count : 0) - (t.from === JobState.pending ? t.count : 0);
    if (delta !== 0) out.push({ at: t.second * 1000, name: t.name, delta });
  }
  return out;
}

export interface TimeSeries {
  /** Adds a batch's completions, failures and wait samples. */
  add(batch: SeriesInput): void;
  /** Records pending jobs per name now (the last sample of a bucket wins). */
  sampleBacklog(pending: Readonly<Record<string, number>>): void;
  /**
   * Fills the hour before `upTo` from the store: throughput and waits of its
   * history, and the backlog walked back from `pending` (the counts at
   * `upTo`). Reads at most `maxRows` history rows (the newest), in chunks,
   * yielding to the event loop between them.
   */
  rebuild(store: Store, upTo: ChangeCursor, pending: Readonly<Record<string, number>>, o?: { maxRows?: number; chunkRows?: number }): Promise<void>;
  view(): SeriesView;
  clear(): void;
}

const len = (step: number) => HOUR_MS / step;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createTimeSeries(now: () => number): TimeSeries {
  const throughput = new BucketRing<{ completed: number; failed: number }>(THROUGHPUT_STEP, len(THROUGHPUT_STEP));
  const latency = new BucketRing<Histogram>(LATENCY_STEP, len(LATENCY_STEP));
  const backlog = new BucketRing<Map<string, number>>(BACKLOG_STEP, len(BACKLOG_STEP));
  const zero = () => ({ completed: 0, failed: 0 });
  let since = now();

  const add = (batch: SeriesInput): void => {
    const t = now();
    for (const g of batch.transitions) {
      const completed = g.to === JobState.completed;
      const failed = FAILED_EVENTS.has(g.event);
      if (!completed && !failed) continue;
      const bucket = throughput.at(g.second * 1000, t, zero);
      if (!bucket) continue;
      if (completed) bucket.completed += g.count;
      if (failed) bucket.failed += g.count;
    }
    for (const s of batch.latency) {
      const h = latency.at(s.at, t, newHistogram);
      if (h) record(h, s.ms);
    }
  };

  return {
    add,
    sampleBacklog(pending) {
      const t = now();
      const bucket = backlog.at(t, t, () => new Map())!;
      bucket.clear();
      for (const [name, n] of Object.entries(pending)) bucket.set(name, n);
    },
    async rebuild(store, upTo, pending, o = {}) {
      const maxRows = o.maxRows ?? 300_000;
      const chunkRows = o.chunkRows ?? 50_000;
      const t = now();
      const hourAgo = await store.cursorAt!(t - HOUR_MS);
      // The newest rows first in importance: a window over the bound starts later.
      let cursor = { jobId: Math.max(hourAgo.jobId, upTo.jobId - maxRows), historyId: Math.max(hourAgo.historyId, upTo.historyId - maxRows) };
      const complete = cursor.historyId > hourAgo.historyId || cursor.jobId > hourAgo.jobId ? Number.POSITIVE_INFINITY : t - HOUR_MS;
      let first: number | undefined;
      const deltas: PendingDelta[] = [];
      for (;;) {
        const batch = await store.changes!(cursor, chunkRows, { upTo, latencySamples: 2_000 });
        add(batch);
        for (const d of pendingDeltas(batch)) deltas.push(d);
        for (const g of batch.transitions) first = Math.min(first ?? Number.POSITIVE_INFINITY, g.second * 1000);
        cursor = batch.cursor;
        if (!batch.more) break;
        await yieldToLoop();
      }
      for (const g of deltas) first = Math.min(first ?? Number.POSITIVE_INFINITY, g.at);
      // Names past the bound (made up by a caller) are walked back summed, as the counts list them.
      const named = new Set([...Object.keys(pending), ...deltas.map((d) => d.name)]);
      if (named.size > NAMES_LISTED + 1) for (const d of deltas) if (!Object.hasOwn(pending, d.name) || d.name === OTHER_NAMES) d.name = OTHER_NAMES;
      // Cut short: the backlog is known back to the oldest change read.
      const knownFrom = complete === Number.POSITIVE_INFINITY ? (first ?? t) : complete;
      const existedBefore = hourAgo.jobId > 0 || hourAgo.historyId > 0;
      // Cut short, the data is known from the oldest change read, whatever came before the hour.
      since = Math.min(since, existedBefore && complete !== Number.POSITIVE_INFINITY ? t - HOUR_MS : (first ?? t));
      const rebuilt = backlogBackwards(pending, deltas, { now: t, step: BACKLOG_STEP, len: len(BACKLOG_STEP), complete: knownFrom });
      for (let i = 0; i < len(BACKLOG_STEP); i++) {
        const at = rebuilt.end - (len(BACKLOG_STEP) - i) * BACKLOG_STEP;
        // Live samples taken meanwhile are newer than the walk back: they stay.
        if (backlog.peek(at, t)) continue;
        const values = Object.entries(rebuilt.names).filter(([, v]) => v[i] !== null);
        if (values.length === 0) continue;
        const bucket = backlog.at(at, t, () => new Map())!;
        for (const [name, v] of values) bucket.set(name, v[i]!);
      }
    },
    view() {
      const t = now();
      const tp = throughput.series(t);
      const lat = latency.series(t);
      const bl = backlog.series(t);
      // Each name's most pending jobs over the hour: the names listed are those with the most, the rest summed.
      const most = new Map<string, number>();
      for (const b of bl.buckets) for (const [name, n] of b ?? []) most.set(name, Math.max(most.get(name) ?? 0, n));
      const listed = listedNames(most, undefined);
      const shown = (name: string) => (listed === undefined || listed.has(name) ? name : OTHER_NAMES);
      const backlogNames = nameRecord<number[]>();
      for (const name of [...new Set([...most.keys()].map(shown))].sort()) backlogNames[name] = bl.buckets.map(() => 0);
      bl.buckets.forEach((b, i) => {
        for (const [name, n] of b ?? []) backlogNames[shown(name)]![i]! += n;
      });
      return {
        throughput: { step: THROUGHPUT_STEP, end: tp.end, completed: tp.buckets.map((b) => b?.completed ?? 0), failed: tp.buckets.map((b) => b?.failed ?? 0) },
        latency: {
          step: LATENCY_STEP,
          end: lat.end,
          p50: lat.buckets.map((h) => (h ? quantile(h, 0.5) : null)),
          p99: lat.buckets.map((h) => (h ? quantile(h, 0.99) : null)),
        },
        backlog: { step: BACKLOG_STEP, end: bl.end, names: backlogNames },
        since: Math.max(since, t - HOUR_MS),
      };
    },
    clear() {
      since = now();
      throughput.clear();
      latency.clear();
      backlog.clear();
    },
  };
}
