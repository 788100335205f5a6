/**
 * A time as the page shows it: relative ("3 min ago"), the absolute time on
 * hover and in `datetime`. Every relative time on the page moves on together,
 * from one shared tick, so "19 s ago" does not stay put until the next fetch
 * and two times read at once agree.
 */
import { useEffect, useState } from 'preact/hooks';
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
  if (ms === undefined) return <span class="muted">–</span>;
  return (
    <time dateTime={new Date(ms).toISOString()} title={absolute(ms)} class="when">
      {prefix}
      {relative(ms, now)}
    </time>
  );
}
