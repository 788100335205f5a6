/** Waiting on events$ instead of sleeping. */
import { filter, firstValueFrom, take, toArray, timeout, type Observable } from 'rxjs';
import type { QueueEvent } from '../../src/index.js';

/** Resolves with the first event matching `pred` (fails after `ms`). */
export function nextEvent(events$: Observable<QueueEvent>, pred: (e: QueueEvent) => boolean, ms = 10_000): Promise<QueueEvent> {
  return firstValueFrom(events$.pipe(filter(pred), timeout(ms)));
}

/** Resolves with the first `n` events matching `pred`. */
export function events(events$: Observable<QueueEvent>, pred: (e: QueueEvent) => boolean, n: number, ms = 10_000): Promise<QueueEvent[]> {
  return firstValueFrom(events$.pipe(filter(pred), take(n), toArray(), timeout(ms)));
}

/** Polls `condition` every 10 ms until it holds; fails after `ms` (for state with no event, such as a file's size). */
export async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
