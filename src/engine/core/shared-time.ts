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
 * The offset is measured at first need, then again in the background once
 * the last measure is older than REMEASURE_MS, each time the best of three
 * reads; the newest measure is used, so a clock stepped meanwhile is
 * followed within that.
 *
 * A virtual clock (`createVirtualClock`) is every process's time in a test:
 * it is taken as the database's as it is (a measure against a real clock
 * would undo each `advance`).
 */
import type { Logger } from '../../lib/logger.js';
import type { Clock } from '../../lib/clock.js';
import type { Store } from '../../store/store.js';

/** How old a measure may get before another is taken (in the background), ms. */
export const REMEASURE_MS = 15_000;
/** Reads a measure makes: the one of least error (the shortest round trip) is used. */
const MEASURE_READS = 3;
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
  /** The newest measure: an older one's error says nothing of a clock stepped since (NTP, a VM resumed). */
  let current: Sample | undefined;
  let measuring: Promise<void> | undefined;
  let warned = false;

  /** `sync`: read from the host's own clock, exact up to the clocks' milliseconds; else a round trip, whose clock reads are truncated to the ms. */
  const take = (t0: number, read: number, t1: number, sync: boolean): Sample => ({ offset: read - (t0 + t1) / 2, error: (t1 - t0) / 2 + (sync ? 0 : 1), at: t1 });
  const adopt = (s: Sample): Sample => {
    current = s;
    if (!warned && Math.abs(s.offset) > WARN_OFF_MS + s.error) {
      warned = true;
      logger?.warn(
        { offsetMs: Math.round(s.offset) },
        "this process's clock is off the database's: rate limits, pauses and throttles follow the database's clock, but leases and due times follow each host's; keep clocks in step (NTP)",
      );
    }
    return s;
  };
  const measure = (): Promise<void> => {
    measuring ??= (async () => {
      try {
        let best: Sample | undefined;
        for (let i = 0; i < MEASURE_READS; i++) {
          const t0 = clock.now();
          const answer = store.databaseNow();
          const s = take(t0, await answer, clock.now(), typeof answer === 'number');
          if (best === undefined || s.error < best.error) best = s;
        }
        adopt(best!);
      } finally {
        measuring = undefined;
      }
    })();
    return measuring;
  };
  const measureSync = (): Sample | undefined => {
    const t0 = clock.now();
    const read = store.databaseNow();
    return typeof read === 'number' ? adopt(take(t0, read, clock.now(), true)) : undefined;
  };
  const from = (s: Sample): DatabaseTime => {
    const t = clock.now() + s.offset;
    // Whole milliseconds, outward: the stores keep times as integers.
    return { lo: Math.floor(t - s.error), hi: Math.ceil(t + s.error) };
  };
  /** The measure in hand; one older than REMEASURE_MS is measured again in the background, and serves meanwhile (a failed read keeps it). */
  const fresh = (): Sample | undefined => {
    if (current !== undefined && clock.now() - current.at >= REMEASURE_MS && measuring === undefined) void measure().catch(() => undefined);
    return current;
  };

  return {
    async now() {
      if (fresh() === undefined) await measure();
      return from(current!);
    },
    nowSync() {
      const s = fresh() ?? measureSync();
      if (s === undefined) throw new Error('the database clock has not been read yet');
      return from(s);
    },
    toLocal(at) {
      return current === undefined ? at : Math.ceil(at - current.offset + current.error);
    },
  };
}
