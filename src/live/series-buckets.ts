/**
 * The time series' bucket arithmetic, free of SQL and timers: rings of
 * fixed-width time buckets over the last hour, log-scale histograms of wait
 * times, and the backlog reconstructed backwards from the pending jobs of now.
 *
 * A series of `len` buckets of `step` ms ending at `end` (the bucket holding
 * `now` is the last): bucket i covers [end - (len - i) * step, end - (len - i - 1) * step).
 */
import { nameRecord } from '../lib/name-record.js';

export const HOUR_MS = 3_600_000;

/** The end of the series whose last bucket holds `now`. */
export function seriesEnd(now: number, step: number): number {
  return (Math.floor(now / step) + 1) * step;
}

/**
 * A ring of `len` buckets of `step` ms: slot `k % len` holds bucket `k` (its
 * start / step) until a newer bucket takes the slot. Only buckets of the last
 * `len` before `now` are kept; a bucket ahead of `now` (another process's
 * clock running fast) is counted in the bucket of `now`.
 */
export class BucketRing<T> {
  private readonly keys: Float64Array;
  private readonly values: Array<T | undefined>;
  constructor(
    readonly step: number,
    readonly len: number,
  ) {
    this.keys = new Float64Array(len).fill(-1);
    this.values = new Array(len);
  }

  /** The bucket holding `at`, created with `init` if need be; undefined when it is older than the window of `now`. */
  at(at: number, now: number, init: () => T): T | undefined {
    const newest = Math.floor(now / this.step);
    const key = Math.min(Math.floor(at / this.step), newest);
    if (key <= newest - this.len) return undefined;
    const slot = key % this.len;
    if (this.keys[slot] !== key) {
      // The slot holds a bucket a whole window older: it has left the series.
      this.keys[slot] = key;
      this.values[slot] = init();
    }
    return this.values[slot];
  }

  /** The bucket holding `at` if it exists (and is not older than the window of `now`). */
  peek(at: number, now: number): T | undefined {
    const newest = Math.floor(now / this.step);
    const key = Math.floor(at / this.step);
    if (key > newest || key <= newest - this.len) return undefined;
    const slot = key % this.len;
    return this.keys[slot] === key ? this.values[slot] : undefined;
  }

  /** Every bucket of the series ending at seriesEnd(now), oldest first (undefined where empty). */
  series(now: number): { end: number; buckets: Array<T | undefined> } {
    const end = seriesEnd(now, this.step);
    const buckets = new Array<T | undefined>(this.len);
    for (let i = 0; i < this.len; i++) buckets[i] = this.peek(end - (this.len - i) * this.step, now);
    return { end, buckets };
  }

  clear(): void {
    this.keys.fill(-1);
    this.values.fill(undefined);
  }
}

/**
 * Log-scale histogram of wait times: bin 0 holds waits under 1 ms, bin b ≥ 1
 * holds [G^(b-1), G^b). Reading a bin back as its geometric middle is off by
 * at most a factor √G (±5%) for any percentile.
 */
export const GROWTH = 1.1;
/** G^(BINS-2) ≈ 40 days: longer waits land in the last bin. */
export const BINS = 200;
const LOG_G = Math.log(GROWTH);

export function binOf(ms: number): number {
  if (!(ms >= 1)) return 0;
  return Math.min(BINS - 1, 1 + Math.floor(Math.log(ms) / LOG_G + 1e-9));
}

/** The value a bin stands for: its geometric middle. */
export function binValue(bin: number): number {
  return bin === 0 ? 0 : GROWTH ** (bin - 1) * Math.sqrt(GROWTH);
}

export interface Histogram {
  counts: Uint32Array;
  total: number;
}

export function newHistogram(): Histogram {
  return { counts: new Uint32Array(BINS), total: 0 };
}

export function record(h: Histogram, ms: number, n = 1): void {
  h.counts[binOf(ms)]! += n;
  h.total += n;
}

/** The q-quantile (0 < q ≤ 1), rounded to whole ms; null for an empty histogram. */
export function quantile(h: Histogram, q: number): number | null {
  if (h.total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * h.total));
  let seen = 0;
  for (let b = 0; b < BINS; b++) {
    seen += h.counts[b]!;
    if (seen >= rank) return Math.round(binValue(b));
  }
  return Math.round(binValue(BINS - 1));
}

/** A change of a name's pending jobs at a time: +n created or back to pending, -n left pending. */
export interface PendingDelta {
  at: number;
  name: string;
  delta: number;
}

/**
 * Pending jobs per name at the end of each bucket (the last bucket: now),
 * walking back from the counts of now through every change since: the count
 * at a bucket's end is now's count less every change at or after that end.
 * `complete` is the earliest time from which `deltas` hold every change;
 * buckets ending before it stay null (unknown).
 */
export function backlogBackwards(
  current: Readonly<Record<string, number>>,
  deltas: readonly PendingDelta[],
  o: { now: number; step: number; len: number; complete: number },
): { end: number; names: Record<string, Array<number | null>> } {
  const end = seriesEnd(o.now, o.step);
  const start = end - o.len * o.step;
  // Sum of the changes per name and bucket; changes before the window only matter to no bucket.
  const perBucket = new Map<string, Float64Array>();
  const row = (name: string) => {
    let r = perBucket.get(name);
    if (!r) {
      r = new Float64Array(o.len);
      perBucket.set(name, r);
    }
    return r;
  };
  for (const name of Object.keys(current)) row(name);
  for (const d of deltas) {
    const i = Math.floor((Math.min(d.at, end - 1) - start) / o.step);
    if (i >= 0) row(d.name)[i]! += d.delta;
  }
  const names = nameRecord<Array<number | null>>();
  for (const [name, sums] of perBucket) {
    const out = new Array<number | null>(o.len).fill(null);
    let value = current[name] ?? 0;
    for (let i = o.len - 1; i >= 0; i--) {
      const bucketEnd = end - (o.len - i - 1) * o.step;
      if (bucketEnd < o.complete) break;
      out[i] = value;
      value -= sums[i]!; // before this bucket's changes: the previous bucket's end
    }
    names[name] = out;
  }
  return { end, names };
}
