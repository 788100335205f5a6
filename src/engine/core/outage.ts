/**
 * How the worker side lives through a database server that cannot be
 * reached (a restart, a lost connection), or a SQLite file whose write lock
 * another connection holds past busyTimeout: each loop backs off and tries
 * again, and the log shows one warning per loop when the outage begins and
 * one line when the database answers again, not one line per try of every
 * loop. Any other failure is an error, logged every time.
 */
import { isDatabaseLocked, isDatabaseUnavailable } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';

/** The first wait after a failed try, and the longest. */
export const RETRY_MIN_MS = 100;
export const RETRY_MAX_MS = 5000;

/** The wait before try `attempt + 1` after `attempt` failed tries (1, 2, …): doubling, capped. */
export function retryDelayMs(attempt: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** Math.min(30, Math.max(0, attempt - 1)));
}

export interface OutageLog {
  /**
   * Reports a failure of `loop` (what it was doing, for the log). True when
   * the database was out of reach: the caller backs off and tries again.
   */
  failed(loop: string, err: unknown, retryInMs?: number): boolean;
  /** `loop` reached the database again: ends its outage, if it had one. */
  recovered(loop: string): void;
}

export function createOutageLog(logger: Logger, clock: Clock): OutageLog {
  /** Loops in an outage, with when it began. */
  const down = new Map<string, number>();
  return {
    failed(loop, err, retryInMs) {
      const locked = isDatabaseLocked(err);
      if (!locked && !isDatabaseUnavailable(err)) {
        logger.error({ err, loop }, `${loop} failed; retrying`);
        return false;
      }
      if (!down.has(loop)) {
        down.set(loop, clock.now());
        const why = locked ? 'the database is locked by another connection past busyTimeout; trying again' : 'the database is unavailable; reconnecting';
        logger.warn({ err, loop, ...(retryInMs === undefined ? {} : { retryInMs }) }, `${loop}: ${why} with backoff (further failures are not logged until it answers)`);
      }
      return true;
    },
    recovered(loop) {
      const since = down.get(loop);
      if (since === undefined) return;
      down.delete(loop);
      logger.info({ loop, downMs: clock.now() - since }, `${loop}: the database answers again`);
    },
  };
}
