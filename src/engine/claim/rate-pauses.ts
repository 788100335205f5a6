/**
 * RateLimitedError pauses, as one claim loop sees them, and the claimed jobs
 * it must not start meanwhile.
 *
 * A pause is written to the store (pauseLimit), and every later claim skips
 * the paused name or group. Jobs claimed before it, waiting in the prefetch
 * buffer, were not: they are handed back (released to pending, due when the
 * pause ends, no attempt spent) instead of being started inside the pause.
 *
 * - A pause raised by a handler of this process is noted here before its
 *   write, synchronously: no buffered job of the name or group starts after
 *   the handler's error. Jobs a claim brings in are checked as they arrive
 *   (a claim may commit before the pause's write does).
 * - Pauses raised elsewhere are read from the store every REFRESH_MS while
 *   the buffer holds jobs (a small read of the limits table): another
 *   process's jobs wait at most that long to hear of a pause. While the
 *   buffer is empty no read is made and no timer armed (an idle queue in a
 *   test's virtual hour would otherwise fire 72,000).
 */
import type { Clock, TimerHandle } from '../../lib/clock.js';
import type { OutageLog } from '../core/outage.js';
import type { JobRecord, LeasedJob, LimitPause } from '../../store/store.js';

/** How often the pauses are read from the store while claimed jobs wait to start, ms. */
export const RATE_PAUSES_REFRESH_MS = 50;

export interface RatePauses {
  /** Notes a pause (this process's, before its write, or one read from the store). */
  note(pause: LimitPause): void;
  /** Replaces the view with what the store holds now (pauses of this process not yet written stay). */
  refresh(pauses: readonly LimitPause[], now: number): void;
  /** Whether any pause is in force at `now` (a cheap look before walking the buffer). */
  any(now: number): boolean;
  /** When the job's name or group is paused at `now`, the end of that pause; else null. */
  pausedUntil(job: Pick<JobRecord, 'name' | 'group'>, now: number): number | null;
}

const keyOf = (kind: LimitPause['kind'], key: string) => `${kind}\u0000${key}`;

export function createRatePauses(): RatePauses {
  const until = new Map<string, number>();
  return {
    note({ kind, key, until: end }) {
      const k = keyOf(kind, key);
      if ((until.get(k) ?? 0) < end) until.set(k, end);
    },
    refresh(pauses, now) {
      for (const [k, end] of until) if (end <= now) until.delete(k);
      for (const p of pauses) this.note(p);
    },
    any(now) {
      for (const end of until.values()) if (end > now) return true;
      return false;
    },
    pausedUntil(job, now) {
      const byName = until.get(keyOf('name', job.name)) ?? 0;
      const byGroup = job.group ? (until.get(keyOf('group', job.group)) ?? 0) : 0;
      const end = Math.max(byName, byGroup);
      return end > now ? end : null;
    },
  };
}

/** The buffered jobs of paused names or groups, taken out of `waiting` (in place), each with its pause's end. */
export function takePaused(waiting: LeasedJob[], pauses: RatePauses, now: number): Array<{ job: LeasedJob; until: number }> {
  const out: Array<{ job: LeasedJob; until: number }> = [];
  if (!pauses.any(now)) return out;
  for (let i = waiting.length - 1; i >= 0; i--) {
    const until = pauses.pausedUntil(waiting[i]!, now);
    if (until === null) continue;
    out.unshift({ job: waiting[i]!, until });
    waiting.splice(i, 1);
  }
  return out;
}

export interface PauseReads {
  /** After jobs joined the buffer: a read is due in REFRESH_MS, unless one is already. */
  arm(): void;
  start(): void;
  stop(): void;
}

/** The reads of other processes' pauses, on a timer armed only while the buffer holds jobs (`waiting()` of them). */
export function createPauseReads(clock: Clock, outage: Pick<OutageLog, 'recovered' | 'failed'>, waiting: () => number, read: () => Promise<void>): PauseReads {
  const what = 'reading rate-limit pauses';
  let running = false;
  let timer: TimerHandle | undefined;
  const arm = (): void => {
    if (!running || timer !== undefined || waiting() === 0) return;
    timer = clock.setTimeout(() => {
      read()
        .then(
          () => outage.recovered(what),
          (err: unknown) => void outage.failed(what, err),
        )
        .finally(() => {
          timer = undefined;
          arm();
        });
    }, RATE_PAUSES_REFRESH_MS);
  };
  return {
    arm,
    start() {
      running = true;
    },
    stop() {
      running = false;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
    },
  };
}
