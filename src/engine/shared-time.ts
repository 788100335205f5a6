/**
 * The database's clock, as this process reads it: the clock of the windows
 * every process shares — rate-limit tokens, RateLimitedError pauses and
 * throttle windows.
 *
 * A window one process opens on its clock and another closes on its own is
 * shortened, in real time, by the skew between the two (a host 700 ms ahead
 * took a token 1.4 s early from one 700 ms behind). So these windows are
 * kept on one clock, the database's (`Store.databaseNow`): PostgreSQL's
 * server clock; for SQLite the clock of the host the file lives on, which
 * every process sharing the file reads (WAL needs them on one host).
 *
 * The offset between the queue's clock and the database's is measured by a
 * read, timed on the queue's clock: its round trip bounds the error. A time
 * is therefore a range, `lo` ≤ the database's time ≤ `hi`: a window is
 * opened at `hi` and found closed at `lo`, so an error only lengthens it.
 * The offset is measured at first need (the best of three reads), then again
 * in the background once the last is older than REMEASURE_MS; the newest
 * measure is used, so a clock stepped meanwhile is followed within that.
 *
 * A virtual clock (`createVirtualClock`) is every process's time in a test:
 * it is taken as the database's as it is (a measure against a real clock
 * would undo each `advance`).
 */
import type { Logger } from '../lib/logger.js';
import type { Clock } from '../lib/clock.js';
import type { Store } from '../store/store.js';

/** How old a measure may get before another is taken (in the background), ms. */
export const REMEASURE_MS = 15_000;
/** Samples kept this long (the newest measure's are used), ms. */
const KEEP_MS = 60_000;
/** Reads this close together are one measure's: the best of them is used. */
const SAME_MEASURE_MS = 1000;
/** An offset this large is worth a warning: leases and due times still follow each host's clock. */
const WARN_OFF_MS = 1000;

/** The database's time now: at least `lo`, at most `hi` (whole ms since the epoch). */
export interface DatabaseTime {
  lo: number;
  hi: number;
}

export interface SharedTime {
  /** The database's time now; measures first when there is no measure yet. */
  now(): Promise<DatabaseTime>;
  /** The same, without waiting: from the last measure (a store that reads its clock synchronously measures now if there is none). */
  nowSync(): DatabaseTime;
  /** When the database's clock reads `at`, as the queue's clock: no earlier than that moment (a timer armed there fires no sooner). */
  toLocal(at: number): number;
}

interface Sample {
  /** Database time minus queue time. */
  offset: number;
  /** How far the offset may be off. */
  error: number;
  /** When it was taken, queue time. */
  at: number;
}

export function createSharedTime(clock: Clock, store: Pick<Store, 'databaseNow'>, logger?: Pick<Logger, 'warn'>): SharedTime {
  if (clock.virtual === true) {
    const exact = (): DatabaseTime => {
      const t = clock.now();
      return { lo: t, hi: t };
    };
    return { now: async () => exact(), nowSync: exact, toLocal: (at) => at };
  }
  let samples: Sample[] = [];
  let measuring: Promise<void> | undefined;
  let warned = false;

  /** `sync`: read from the host's own clock, exact up to the clocks' milliseconds; else a round trip, whose clock reads are truncated to the ms. */
  const take = (t0: number, read: number, t1: number, sync: boolean): Sample => ({ offset: read - (t0 + t1) / 2, error: (t1 - t0) / 2 + (sync ? 0 : 1), at: t1 });
  const keep = (s: Sample) => {
    samples = [...samples.filter((x) => s.at - x.at < KEEP_MS), s];
    if (!warned && Math.abs(s.offset) > WARN_OFF_MS + s.error) {
      warned = true;
      logger?.warn(
        { offsetMs: Math.round(s.offset) },
        "this process's clock is off the database's: rate limits, pauses and throttles follow the database's clock, but leases and due times follow each host's; keep clocks in step (NTP)",
      );
    }
  };
  /**
   * The sample of least error among the latest measure's reads (taken together): an older one's error
   * says nothing of a clock stepped since (NTP, a VM resumed), so it is not used once a newer read came.
   */
  const best = (): Sample | undefined => {
    const newest = samples.at(-1);
    if (newest === undefined) return undefined;
    return samples.filter((s) => newest.at - s.at <= SAME_MEASURE_MS).reduce((b, s) => (s.error < b.error ? s : b), newest);
  };
  const readOnce = async (): Promise<void> => {
    const t0 = clock.now();
    const answer = store.databaseNow();
    const read = await answer;
    keep(take(t0, read, clock.now(), typeof answer === 'number'));
  };
  const measure = (rounds: number): Promise<void> => {
    measuring ??= (async () => {
      try {
        for (let i = 0; i < rounds; i++) await readOnce();
      } finally {
        measuring = undefined;
      }
    })();
    return measuring;
  };
  const measureSync = (): Sample | undefined => {
    const t0 = clock.now();
    const read = store.databaseNow();
    if (typeof read !== 'number') return undefined;
    keep(take(t0, read, clock.now(), true));
    return best();
  };
  const from = (s: Sample): DatabaseTime => {
    const t = clock.now() + s.offset;
    // Whole milliseconds, outward: the stores keep times as integers.
    return { lo: Math.floor(t - s.error), hi: Math.ceil(t + s.error) };
  };
  const fresh = (): Sample | undefined => {
    const s = best();
    if (s !== undefined && clock.now() - samples.at(-1)!.at >= REMEASURE_MS && measuring === undefined) {
      // In the background: the measure in hand serves meanwhile (a failed read keeps it).
      void measure(1).catch(() => undefined);
    }
    return s;
  };

  return {
    async now() {
      let s = fresh();
      if (s === undefined) {
        await measure(3);
        s = best()!;
      }
      return from(s);
    },
    nowSync() {
      const s = fresh() ?? measureSync();
      if (s === undefined) throw new Error('the database clock has not been read yet');
      return from(s);
    },
    toLocal(at) {
      const s = best();
      return s === undefined ? at : Math.ceil(at - s.offset + s.error);
    },
  };
}
