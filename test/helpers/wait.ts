/** Waiting on events$ instead of sleeping. */
import { filter, firstValueFrom, take, toArray, timeout, type Observable } from 'rxjs';
import { isTransition, type ClaimPassEvent, type JobTransitionEvent, type QueueEvent } from '../../src/index.js';

/** Resolves with the first event matching `pred` (fails after `ms`). */
export function nextEvent(events$: Observable<QueueEvent>, pred: (e: JobTransitionEvent) => boolean, ms = 10_000): Promise<JobTransitionEvent> {
  return firstValueFrom(events$.pipe(filter(isTransition), filter(pred), timeout(ms)));
}

/** Resolves with the first `n` events matching `pred`. */
export function events(events$: Observable<QueueEvent>, pred: (e: JobTransitionEvent) => boolean, n: number, ms = 10_000): Promise<JobTransitionEvent[]> {
  return firstValueFrom(events$.pipe(filter(isTransition), filter(pred), take(n), toArray(), timeout(ms)));
}

/** The job transitions of an event stream (stuck-run events left out). */
export function transitions$(events$: Observable<QueueEvent>): Observable<JobTransitionEvent> {
  return events$.pipe(filter(isTransition));
}

/** Polls `condition` every 10 ms until it holds; fails after `ms` (for state with no event, such as a file's size or a row). */
export async function waitFor(condition: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Resolves with the first claim-loop pass (queue.passes$) to end from now on
 * that matches `pred` (fails after `ms`): subscribe before the action, await
 * after it. "The loop looked and took nothing" is a pass with `claimed: 0`.
 */
export function nextPass(passes$: Observable<ClaimPassEvent>, pred: (p: ClaimPassEvent) => boolean = () => true, ms = 10_000): Promise<ClaimPassEvent> {
  return firstValueFrom(passes$.pipe(filter(pred), timeout(ms)));
}

/**
 * Polls (in real time) until `condition` holds, moving a virtual clock by
 * `stepMs` (default 0) between looks: a pass that ran on database I/O the
 * virtual clock does not wait for may have armed its next timer in the past,
 * which fires on the clock's next move. A step moves on a loop whose pass was
 * still reading the database when the clock last moved: it armed its next
 * from the moved clock.
 */
export async function untilOnClock(clock: { advance(ms: number): Promise<void> }, condition: () => Promise<boolean>, what: string, ms = 20_000, stepMs = 0): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not reached: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await clock.advance(stepMs);
  }
}
