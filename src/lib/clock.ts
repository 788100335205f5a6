/**
 * Time as one dependency: the current time and timers. Everything in the
 * engine that waits (the claim loop, lease renewal, handler timeouts, the
 * lease sweeper, retention, WAL checkpoints) goes through a Clock, so tests
 * drive it with a VirtualClock instead of real pauses.
 */

/** An opaque handle returned by `setTimeout`. */
export type TimerHandle = { readonly __timer: unique symbol } | object;

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once after `ms` (clamped to what a timer can hold). */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  /**
   * A clock that every process of a test reads (`createVirtualClock`): the
   * windows processes share (rate limits, RateLimitedError pauses, throttle
   * windows) follow it as it is. Any other clock is taken as a host's, and
   * those windows follow the database's clock instead, read through it
   * (engine/core/shared-time.ts).
   */
  readonly virtual?: boolean;
}

/**
 * The longest delay a Node timer holds: above 2^31−1 ms (~24.8 days) Node
 * fires at once with a TimeoutOverflowWarning. A longer wait fires at this
 * bound and the caller looks again.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export function clampDelay(ms: number): number {
  if (!(ms > 0)) return 0; // NaN and negatives: now
  return Math.min(ms, MAX_TIMER_MS);
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, clampDelay(ms)),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Calls `fn` once `ms` have passed on the clock, however long that is: a
 * wait past what one timer holds (MAX_TIMER_MS, ~24.8 days) is armed again
 * at each bound instead of ending there. Returns the function that cancels it.
 */
export function afterDelay(clock: Clock, ms: number, fn: () => void): () => void {
  const at = clock.now() + ms;
  let handle: TimerHandle;
  const arm = (left: number) => {
    handle = clock.setTimeout(() => {
      const rest = at - clock.now();
      if (left > MAX_TIMER_MS && rest > 0) arm(rest);
      else fn();
    }, left);
  };
  arm(ms);
  return () => clock.clearTimeout(handle);
}

/** Sleeps on the clock. */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}

/**
 * Runs `fn` every `ms`, never two at once: the next run is armed when the
 * previous one has settled. Returns a function that stops it.
 */
export function every(clock: Clock, ms: number, fn: () => Promise<void>, onError: (err: unknown) => void): () => void {
  let stopped = false;
  let handle: TimerHandle | undefined;
  const tick = () => {
    fn()
      .catch(onError)
      .finally(() => {
        if (!stopped) handle = clock.setTimeout(tick, ms);
      });
  };
  handle = clock.setTimeout(tick, ms);
  return () => {
    stopped = true;
    if (handle !== undefined) clock.clearTimeout(handle);
  };
}
