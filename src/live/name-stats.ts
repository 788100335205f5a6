/**
 * The overview's figures per job name: attempts completed and failed per
 * minute over the hour (their rate over the last five minutes, and a
 * sparkline), and the wait from due to start of the jobs claimed in the last
 * five minutes. Fed by the change feed's batches like the series
 * (time-series.ts); `rebuild()` fills the hour before from the history once,
 * at start. The counts and pauses come from the caller (the live counts).
 *
 * Bounded: at most `maxNames` names are tracked, the first ones seen; every
 * other name's changes and counts are folded into one `other` record. A name
 * with no jobs, no pause and nothing in the hour gives its slot back.
 */
import { JobEventType, JobState } from '../../machines/job.machine.js';
import { nameRecord } from '../lib/name-record.js';
import type { PausedView } from '../store/paused.js';
import type { ChangeBatch, ChangeCursor, Store } from '../store/store.js';
import { BucketRing, HOUR_MS, newHistogram, quantile, record, seriesEnd, type Histogram } from './series-buckets.js';

export const MINUTE_MS = 60_000;
/** The window of each name's rates and waits. */
export const RECENT_MS = 5 * MINUTE_MS;
export const MAX_NAMES = 100;

/** An attempt that ended in an error, whatever state it led to, as the series count it. */
const FAILED_EVENTS = new Set<string>([JobEventType.fail, JobEventType.expire]);

export interface OverviewFigures {
  /** Jobs per state now (states with none may be left out). */
  counts: Record<string, number>;
  /** Attempts per minute over the last RECENT_MS. */
  throughput: { completed: number; failed: number };
  /** Attempts in each minute of the hour, oldest first (see the view's `perMinute`). */
  perMinute: { completed: number[]; failed: number[] };
  /** How long the jobs claimed in the last RECENT_MS had been due, ms (of sampled claims); null: none claimed. */
  wait: { p50: number | null; p95: number | null };
}

export interface OverviewRow extends OverviewFigures {
  name: string;
  paused: boolean;
}

export interface OverviewView {
  at: number;
  windowMs: number;
  /** The minutes each row's `perMinute` covers: `len` of `step` ms ending at `end`. */
  perMinute: { step: number; end: number };
  paused: PausedView;
  /** The tracked names, sorted. */
  rows: OverviewRow[];
  /** Every name past the cap, together; null when there is none. */
  other: (OverviewFigures & { names: number }) | null;
}

/** What the figures take from a batch: a subset of ChangeBatch. */
export type NameStatsInput = Pick<ChangeBatch, 'transitions' | 'latency'>;

export interface NameStats {
  add(batch: NameStatsInput): void;
  /** Fills the hour before `upTo` from the store's history (at most `maxRows` rows, the newest), in chunks. */
  rebuild(store: Store, upTo: ChangeCursor, o?: { maxRows?: number; chunkRows?: number }): Promise<void>;
  /** The overview: these figures beside the counts (state → name → jobs) and pauses of now. */
  view(counts: Readonly<Record<string, Readonly<Record<string, number>>>>, paused: PausedView): OverviewView;
  /** Names tracked now (not the folded ones). */
  tracked(): number;
  clear(): void;
}

interface Minute {
  completed: number;
  failed: number;
}

/** One name's (or the folded names') changes: minutes of the hour, waits per minute of the window. */
class Tally {
  readonly minutes = new BucketRing<Minute>(MINUTE_MS, HOUR_MS / MINUTE_MS);
  readonly waits = new BucketRing<Histogram>(MINUTE_MS, RECENT_MS / MINUTE_MS);

  empty(now: number): boolean {
    return this.minutes.series(now).buckets.every((m) => m === undefined || m.completed + m.failed === 0);
  }
}

const zero = (): Minute => ({ completed: 0, failed: 0 });
const round2 = (n: number) => Math.round(n * 100) / 100;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function hasJobs(counts: Readonly<Record<string, number>> | undefined): boolean {
  return counts !== undefined && Object.values(counts).some((n) => n > 0);
}

export function createNameStats(now: () => number, o: { maxNames?: number } = {}): NameStats {
  const maxNames = o.maxNames ?? MAX_NAMES;
  const names = new Map<string, Tally>();
  let other = new Tally();
  /** Bumped by clear(): a rebuild still running for the cleared figures stops adding. */
  let generation = 0;

  /** The name's tally: its own while there is room, else the folded one. */
  const tallyOf = (name: string): Tally => {
    let tally = names.get(name);
    if (tally) return tally;
    if (names.size >= maxNames) return other;
    tally = new Tally();
    names.set(name, tally);
    return tally;
  };

  const add = (batch: NameStatsInput): void => {
    const t = now();
    for (const g of batch.transitions) {
      if (g.name === null) continue; // the job is gone: its name is unknown
      const completed = g.to === JobState.completed;
      const failed = FAILED_EVENTS.has(g.event);
      if (!completed && !failed) continue;
      const minute = tallyOf(g.name).minutes.at(g.second * 1000, t, zero);
      if (!minute) continue;
      if (completed) minute.completed += g.count;
      if (failed) minute.failed += g.count;
    }
    for (const s of batch.latency) {
      if (s.name === undefined) continue;
      const h = tallyOf(s.name).waits.at(s.at, t, newHistogram);
      if (h) record(h, s.ms);
    }
  };

  const figures = (tally: Tally, counts: Record<string, number>, t: number): OverviewFigures => {
    const { buckets } = tally.minutes.series(t);
    const perMinute = { completed: buckets.map((m) => m?.completed ?? 0), failed: buckets.map((m) => m?.failed ?? 0) };
    const inWindow = RECENT_MS / MINUTE_MS;
    const sum = (xs: number[]) => xs.slice(-inWindow).reduce((a, b) => a + b, 0);
    // The window's first minute is whole, its last runs up to now: a rate over the time it covers.
    const minutes = (t - (seriesEnd(t, MINUTE_MS) - RECENT_MS)) / MINUTE_MS;
    const waits = newHistogram();
    for (const h of tally.waits.series(t).buckets) {
      if (!h) continue;
      for (let b = 0; b < h.counts.length; b++) waits.counts[b]! += h.counts[b]!;
      waits.total += h.total;
    }
    return {
      counts,
      throughput: { completed: round2(sum(perMinute.completed) / minutes), failed: round2(sum(perMinute.failed) / minutes) },
      perMinute,
      wait: { p50: quantile(waits, 0.5), p95: quantile(waits, 0.95) },
    };
  };

  return {
    add,
    async rebuild(store, upTo, r = {}) {
      const maxRows = r.maxRows ?? 300_000;
      const chunkRows = r.chunkRows ?? 50_000;
      const started = generation;
      const since = await store.cursorAt!(now() - HOUR_MS);
      // The newest rows matter most: a history longer than the bound is read from later on.
      let cursor = { jobId: Math.max(since.jobId, upTo.jobId - maxRows), historyId: Math.max(since.historyId, upTo.historyId - maxRows) };
      for (;;) {
        const batch = await store.changes!(cursor, chunkRows, { upTo, latencySamples: 2_000, recent: 0 });
        if (generation !== started) return;
        add(batch);
        cursor = batch.cursor;
        if (!batch.more) return;
        await yieldToLoop();
      }
    },
    view(counts, paused) {
      const t = now();
      const byName = nameRecord<Record<string, number>>();
      for (const [state, perName] of Object.entries(counts)) {
        for (const [name, n] of Object.entries(perName)) {
          byName[name] ??= nameRecord<number>();
          byName[name][state] = n;
        }
      }
      const isPaused = (name: string) => paused.names.includes(name);
      // Slots given back first, so that the names of now can take them.
      for (const [name, tally] of names) if (!hasJobs(byName[name]) && !isPaused(name) && tally.empty(t)) names.delete(name);
      for (const name of [...Object.keys(byName), ...paused.names].sort()) if (hasJobs(byName[name]) || isPaused(name)) tallyOf(name);

      const rows: OverviewRow[] = [...names.keys()].sort().map((name) => ({ name, paused: isPaused(name), ...figures(names.get(name)!, byName[name] ?? nameRecord(), t) }));
      const folded = Object.keys(byName).filter((name) => !names.has(name));
      const otherCounts = nameRecord<number>();
      for (const name of folded) for (const [state, n] of Object.entries(byName[name]!)) otherCounts[state] = (otherCounts[state] ?? 0) + n;
      const otherEmpty = folded.length === 0 && other.empty(t) && other.waits.series(t).buckets.every((h) => h === undefined);
      return {
        at: t,
        windowMs: RECENT_MS,
        perMinute: { step: MINUTE_MS, end: seriesEnd(t, MINUTE_MS) },
        paused,
        rows,
        other: otherEmpty ? null : { names: folded.length, ...figures(other, otherCounts, t) },
      };
    },
    tracked: () => names.size,
    clear() {
      generation++;
      names.clear();
      other = new Tally();
    },
  };
}
