/**
 * A time as the page shows it: relative ("3 min ago"), the absolute time on
 * hover and in `datetime`. Every relative time on the page moves on together,
 * from one shared tick, so "19 s ago" does not stay put until the next fetch
 * and two times read at once agree.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { absolute, relative, toMs } from './format';
import type { Time } from './types';

const TICK_MS = 1000;
const listeners = new Set<(now: number) => void>();
let timer: ReturnType<typeof setInterval> | undefined;
let shared = Date.now();

function subscribe(listener: (now: number) => void): () => void {
  listeners.add(listener);
  if (timer === undefined) {
    timer = setInterval(() => {
      // A hidden tab shows nothing: no renders for it (the first tick once shown catches up).
      if (document.hidden) return;
      shared = Date.now();
      for (const l of listeners) l(shared);
    }, TICK_MS);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/** The page's shared "now", moving on every second while anything shows a relative time. */
export function useNow(): number {
  const [now, setNow] = useState(shared);
  useEffect(() => subscribe(setNow), []);
  return now;
}

export function When({ at, prefix = '' }: { at: Time | null | undefined; prefix?: string }) {
  const now = useNow();
  const ms = toMs(at);
  // Formatted once per time, not at every tick: a running job's timeline holds many of them.
  const fixed = useMemo(() => (ms === undefined ? undefined : { iso: new Date(ms).toISOString(), title: absolute(ms) }), [ms]);
  if (ms === undefined || !fixed) return <span class="muted">–</span>;
  return (
    <time dateTime={fixed.iso} title={fixed.title} class="when">
      {prefix}
      {relative(ms, now)}
    </time>
  );
}
