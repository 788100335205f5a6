/**
 * Job counts per state and per state × name, kept in memory from the change
 * feed: +1 pending per new job, -from +to per history row.
 *
 * Seeding: an exact count of a large file takes long (≈0.5 s per million
 * rows), so it is taken in slices of ids, one slice per read of the feed and
 * in the same read transaction as that read's changes. At the seed's start
 * the newest job id is its target T; ids above T are counted by their
 * creation in the feed. A history row of a job in (counted so far, T] is left
 * out (its slice, counted later, holds its effect); every other row applies.
 *
 * Drift: deletions (retention) and processes that keep no history change
 * counts unseen. Every read carries the store's count of deleted jobs (one
 * row, no scan); when it moved, and every `reseedMs` anyway, a new seed is
 * counted beside the current counts, which keep answering until it is
 * complete. Deletions during a seed call for one more once it is done.
 */
import { JobState } from '../../machines/job.machine.js';
import type { Clock } from '../lib/clock.js';
import type { ChangeBatch, ChangeCursor, ChangeOptions, IdRange } from '../store/store.js';
import { nameRecord } from '../lib/name-record.js';
import { listedNames, OTHER_NAMES } from '../lib/name-bound.js';

/** state → name → jobs */
type Counts = Map<string, Map<string, number>>;

export interface CountsView {
  total: number;
  states: Record<string, number>;
  names: Record<string, Record<string, number>>;
  /** No complete count yet: these are partial. */
  seeding?: true;
}

export interface LiveCounts {
  /** What the next read should also count or mark; called before each read with its start. */
  readOptions(after: ChangeCursor): Pick<ChangeOptions, 'countIds' | 'markIds'>;
  /** Applies a read's changes (and the slice it was asked for, and the deletions count). */
  apply(batch: ChangeBatch): void;
  view(): CountsView;
  /** Pending jobs per name (of the counts that answer), bounded as `view()`'s names: the rest under OTHER_NAMES. */
  pending(): Record<string, number>;
  /** A complete count is in hand. */
  seeded(): boolean;
  /** A seed is under way: the feed may read again soon. */
  busy(): boolean;
  /** Starts a fresh count (the current one keeps answering until it is complete). */
  reseed(reason: string): void;
  /** Forgets everything (the feed restarts from a new cursor). */
  reset(): void;
}

export interface LiveCountsOptions {
  clock: Clock;
  /** The queue's own job names: always listed by name (the rest are bounded: NAMES_LISTED). */
  own?: ReadonlySet<string>;
  sliceIds?: number;
  reseedMs?: number;
  onReseed?: (reason: string) => void;
}

interface Seed {
  counts: Counts;
  /** Ids up to here are counted. */
  done: number;
  /** The newest job id when the seed started; null until its first read. */
  target: number | null;
}

function add(counts: Counts, state: string, name: string, n: number): void {
  let byName = counts.get(state);
  if (!byName) {
    byName = new Map();
    counts.set(state, byName);
  }
  const next = (byName.get(name) ?? 0) + n;
  if (next === 0) byName.delete(name);
  else byName.set(name, next);
}

export function createLiveCounts(o: LiveCountsOptions): LiveCounts {
  // ≈25 ms of counting per read on a million-row file: short stalls of the event loop.
  const sliceIds = o.sliceIds ?? 25_000;
  const reseedMs = o.reseedMs ?? 300_000;
  let current: Counts | null = null;
  let seed: Seed | null = { counts: new Map(), done: 0, target: null };
  let seedStarted = o.clock.now();
  /** The store's deletions count as last read; a seed is due when it moves. */
  let deleted: number | undefined;
  let reseedAfterSeed = false;
  /** The slice the last read was asked to count. */
  let asked: IdRange | undefined;

  const applyTo = (counts: Counts, batch: ChangeBatch, skipMarked: boolean) => {
    for (const e of batch.enqueued) add(counts, e.state ?? JobState.pending, e.name, e.count);
    for (const t of batch.transitions) {
      // A row whose job is gone: the deletion was not seen either; the drift check sets it right.
      if (t.name === null || (skipMarked && t.marked)) continue;
      if (t.from !== null) add(counts, t.from, t.name, -t.count);
      add(counts, t.to, t.name, t.count);
    }
  };

  const reseed = (reason: string) => {
    if (seed) return;
    seed = { counts: new Map(), done: 0, target: null };
    seedStarted = o.clock.now();
    o.onReseed?.(reason);
  };

  return {
    readOptions(after) {
      const now = o.clock.now();
      if (!seed && now - seedStarted >= reseedMs) reseed('periodic recount');
      if (seed) {
        seed.target ??= after.jobId;
        asked = { after: seed.done, upTo: Math.min(seed.target, seed.done + sliceIds) };
        return { countIds: asked, markIds: { after: seed.done, upTo: seed.target } };
      }
      asked = undefined;
      return {};
    },
    apply(batch) {
      if (current) applyTo(current, batch, false);
      if (seed && seed.target !== null) {
        applyTo(seed.counts, batch, true);
        if (batch.counts && asked) {
          for (const c of batch.counts) add(seed.counts, c.state, c.name, c.count);
          seed.done = asked.upTo;
        }
        if (seed.done >= seed.target) {
          current = seed.counts;
          seed = null;
          if (reseedAfterSeed) {
            reseedAfterSeed = false;
            reseed('jobs deleted while counting');
          }
        }
      }
      asked = undefined;
      if (batch.deleted !== undefined) {
        const moved = deleted !== undefined && batch.deleted !== deleted;
        deleted = batch.deleted;
        if (moved && seed) reseedAfterSeed = true;
        else if (moved) reseed('jobs deleted (retention)');
      }
    },
    view() {
      const counts = current ?? seed?.counts ?? new Map();
      const view: CountsView = { total: 0, states: nameRecord(), names: nameRecord() };
      for (const [state, byName] of counts) {
        let n = 0;
        const names = nameRecord<number>();
        const listed = listedNames(byName, o.own);
        for (const [name, c] of byName) {
          n += c;
          // A name made up by a caller beyond the bound is summed with the rest: every tick to every page stays small.
          const as = listed === undefined || listed.has(name) ? name : OTHER_NAMES;
          names[as] = (names[as] ?? 0) + c;
        }
        if (byName.size === 0) continue;
        view.states[state] = n;
        view.names[state] = names;
        view.total += n;
      }
      if (!current) view.seeding = true;
      return view;
    },
    pending() {
      // Bounded as the view's names are: the series sample this each 10 s and keep an hour of it.
      const byName = (current ?? seed?.counts)?.get(JobState.pending) ?? new Map<string, number>();
      const listed = listedNames(byName, o.own);
      const out = nameRecord<number>();
      for (const [name, n] of byName) {
        const as = listed === undefined || listed.has(name) ? name : OTHER_NAMES;
        out[as] = (out[as] ?? 0) + n;
      }
      return out;
    },
    seeded: () => current !== null,
    busy: () => seed !== null,
    reseed,
    reset() {
      current = null;
      seed = { counts: new Map(), done: 0, target: null };
      seedStarted = o.clock.now();
      asked = undefined;
    },
  };
}

