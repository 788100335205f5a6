/**
 * A clock whose time moves only when a test says so. Timers fire in due
 * order; between two timers the promise jobs they started get to run, so
 * code that awaits after a timer sees the time of that timer. A delay is
 * clamped as the system clock's is (clampDelay: at most ~24.8 days), so code
 * that waits longer is tested as it runs.
 *
 * @example
 * const clock = createVirtualClock(0);
 * const queue = createQueue({ path, clock, jobs });
 * await clock.advance(60_000); // a minute passes, every due timer fires
 */
import { clampDelay, type Clock, type TimerHandle } from './clock.js';

export interface VirtualClock extends Clock {
  /** Every process of the test reads it: shared windows follow it as it is (Clock `virtual`). */
  readonly virtual: true;
  /** Moves time forward by `ms`, firing every timer that comes due on the way. */
  advance(ms: number): Promise<void>;
  /** Timers armed and not yet fired or cleared. */
  pending(): number;
}

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

/** Lets the promise jobs queued so far (and those they queue) run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createVirtualClock(start = 0): VirtualClock {
  let t = start;
  let seq = 0;
  const timers = new Set<Timer>();
  const nextDue = (until: number): Timer | undefined => {
    let best: Timer | undefined;
    for (const timer of timers) {
      if (timer.at <= until && (!best || timer.at < best.at || (timer.at === best.at && timer.seq < best.seq))) best = timer;
    }
    return best;
  };
  return {
    virtual: true,
    now: () => t,
    setTimeout(fn, ms) {
      const timer: Timer = { at: t + clampDelay(ms), seq: seq++, fn };
      timers.add(timer);
      return timer as TimerHandle;
    },
    clearTimeout(handle) {
      timers.delete(handle as Timer);
    },
    async advance(ms) {
      const until = t + ms;
      await settle();
      for (let timer = nextDue(until); timer; timer = nextDue(until)) {
        timers.delete(timer);
        t = Math.max(t, timer.at);
        timer.fn();
        await settle();
      }
      // Never back: an advance made meanwhile (two at once) may have gone further.
      t = Math.max(t, until);
      await settle();
    },
    pending: () => timers.size,
  };
}
