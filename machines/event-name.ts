/**
 * A machine event as people read it. xstate names a delayed edge's event
 * `xstate.after.<delay>.<machine id>.<state>`; the statechart, the lifecycle
 * page, the history, `watch()` and the CLI all show it as `after <delay>`
 * (`after retryDelay`, `after 500 ms` for a delay in milliseconds). Any other
 * event is shown as it is.
 */
const AFTER_PREFIX = 'xstate.after.';

/** `event` as shown; `from` is the state the edge leaves (the name's last part), when known. */
export function eventName(event: string, from: string | null): string {
  if (!event.startsWith(AFTER_PREFIX)) return event;
  // `<delay>.<machine id>.<state>`: the state is the one left, and a machine's id has no dot.
  let rest = event.slice(AFTER_PREFIX.length);
  if (from !== null && rest.endsWith(`.${from}`)) rest = rest.slice(0, -(from.length + 1));
  const cut = rest.lastIndexOf('.');
  const delay = cut > 0 ? rest.slice(0, cut) : rest;
  return /^\d+$/.test(delay) ? `after ${delay} ms` : `after ${delay}`;
}
