/**
 * How many claimed jobs a process keeps waiting for its workers (the prefetch
 * buffer), sized from what the workers consume and what a claim costs.
 *
 * A claim is one transaction, and on PostgreSQL a round trip: claims of a few
 * dozen jobs spend most of their time on the statement, not the jobs (the
 * benchmarks page, "Sizes chosen by measurement", has the figures). A fixed
 * large buffer is wrong the other way: a process would hold hundreds of long
 * jobs under its lease while other hosts sit idle, and a job enqueued with a
 * higher priority would wait behind all of them.
 *
 * So by default the buffer holds a horizon of work: the rate at which this
 * process's workers took jobs, times four claims' time, kept between 20 and
 * 100 ms, between four times `concurrency` (the floor, where short claims
 * cost little) and MAX_ADAPTIVE. The horizon follows the claims' cost: a
 * process beside its database claims in about a millisecond and keeps 20 ms
 * of work; one whose claims cross a network keeps four of its round trips
 * (a buffered job confirmed longer ago than the start check's 50 ms is
 * confirmed again ahead of its start: start-check.ts).
 *
 * The rate is what the workers took, which a buffer too small holds down:
 * when the workers emptied the buffer while a claim was on its way and that
 * claim came back full (`starved`), the backlog is deeper than the buffer
 * and the size grows fourfold at once. No-op jobs grow it to the ceiling in a few
 * claims; jobs of a second each never empty it and keep it at the floor; an
 * idle queue drops back to the floor at its next claim. Jobs that wait in
 * the buffer start within about one horizon, so neither leases nor
 * priorities are held long. An explicit `prefetch` option is used as given.
 */

/** The most jobs the adaptive buffer holds. */
export const MAX_ADAPTIVE = 1024;
/**
 * The most, per worker, when names have a group concurrency: a buffered job
 * holds its group's slot, so a large buffer blocks groups for other hosts and
 * makes each claim step over more busy groups (measured at 64, 128 and 256
 * jobs: the benchmarks page, "Sizes chosen by measurement").
 */
export const MAX_GROUPED_PER_WORKER = 8;
/**
 * How much a starved buffer grows at once. A cold process facing a backlog
 * climbs from the floor to the ceiling in two claims, not four: claims of
 * 64 and 128 jobs cost nearly as much as claims of 1,024 on PostgreSQL, and
 * a process started for a backlog spent its first ~100 ms on them.
 */
const GROWTH = 4;
const MIN_HORIZON_MS = 20;
/** How long a buffered job waits at most, about: what a job enqueued with a higher priority waits behind it. */
const MAX_HORIZON_MS = 100;
/** The buffer covers this many claims' time, so workers do not wait on one. */
const CLAIMS_AHEAD = 4;
/** Rate samples span at least this long, so a burst of quick claims is not read as the rate. */
const SAMPLE_MS = 20;
/**
 * The pace behind a hand-back is measured over at least this long. Over one
 * short horizon it is noise: the group commit of a few hundred outcomes, or
 * a GC pause, stops every take for tens of ms, and each job handed back costs
 * a write and a claim again (a drain of no-op jobs handed back and claimed
 * again a good share of its jobs). Long jobs still go back within a fraction
 * of one of their runs.
 */
const PACE_MIN_MS = 100;

export interface PrefetchSize {
  /** The buffer's size now. */
  target(): number;
  /** The largest size it may take (bounds what waits for outcomes). */
  readonly max: number;
  /** A worker took a job from the buffer. */
  took(): void;
  /** A claim finished: `ms` long, at `now`; `starved`: the workers emptied the buffer while it ran, and it came back full. */
  claimed(ms: number, now: number, starved?: boolean): void;
  /** How long the buffer's work lasts, ms: four claims' time, 20 to 100. */
  horizonMs(): number;
  /** How long after a claim its jobs still waiting are looked at (`overflow`) even while no worker takes one, ms. */
  overflowCheckMs(): number;
  /**
   * How many of the `buffered` jobs to hand back at `now`: those beyond what
   * the workers get through within the horizon at the pace they took jobs
   * since the last claim, once the buffer holds over twice that. None until
   * the last claim is a horizon (and PACE_MIN_MS) old, nor down to the floor; the size shrinks
   * to what is kept. Jobs that turned
   * slow after quick ones (a burst of long jobs claimed at the quick ones'
   * rate) would otherwise wait in one process while others sit idle.
   */
  overflow(buffered: number, now: number): number;
}

export function createPrefetchSize(concurrency: number, fixed: number | undefined, now: number, grouped = false): PrefetchSize {
  if (fixed !== undefined) {
    return { target: () => fixed, max: fixed, took() {}, claimed() {}, horizonMs: () => MAX_HORIZON_MS, overflowCheckMs: () => 2 * MAX_HORIZON_MS, overflow: () => 0 };
  }
  const floor = 4 * concurrency;
  const max = Math.max(floor, grouped ? MAX_GROUPED_PER_WORKER * concurrency : MAX_ADAPTIVE);
  let size = floor;
  let taken = 0;
  let since = now;
  /** Jobs taken per ms, smoothed over samples; null before the first. */
  let rate: number | null = null;
  /** A claim's duration, smoothed. */
  let claimMs = 0;
  let horizon = MIN_HORIZON_MS;
  /** The last claim's end, and the jobs taken since. */
  let lastClaimAt = now;
  let takenSinceClaim = 0;
  return {
    target: () => size,
    max,
    took() {
      taken++;
      takenSinceClaim++;
    },
    horizonMs: () => horizon,
    // Past the threshold `overflow` applies, by a horizon: a timer may fire a millisecond early on the clock it reads.
    overflowCheckMs: () => Math.max(horizon, PACE_MIN_MS) + horizon,
    overflow(buffered, at) {
      const elapsed = at - lastClaimAt;
      if (elapsed < Math.max(horizon, PACE_MIN_MS) || buffered <= floor) return 0;
      const keep = Math.max(floor, Math.ceil((takenSinceClaim / elapsed) * horizon));
      // Only past twice what is kept: a pace a little below the claim's costs no hand-back (each one is a write).
      if (buffered <= 2 * keep) return 0;
      size = Math.min(size, keep);
      return buffered - keep;
    },
    claimed(ms, at, starved = false) {
      claimMs = claimMs === 0 ? ms : 0.8 * claimMs + 0.2 * ms;
      horizon = Math.min(MAX_HORIZON_MS, Math.max(MIN_HORIZON_MS, CLAIMS_AHEAD * claimMs));
      lastClaimAt = at;
      takenSinceClaim = 0;
      if (starved) {
        // The rate measured so far was held down by the buffer: measure it again at the new size.
        size = Math.min(max, size * GROWTH);
        rate = null;
        taken = 0;
        since = at;
        return;
      }
      const elapsed = at - since;
      if (elapsed < SAMPLE_MS) return;
      const sample = taken / elapsed;
      // A long quiet stretch is its own answer: the rate is what it was.
      rate = rate === null || elapsed > 1000 ? sample : 0.5 * rate + 0.5 * sample;
      taken = 0;
      since = at;
      size = Math.min(max, Math.max(floor, Math.round(rate * horizon)));
    },
  };
}
