/** A time as the page shows it: relative ("3 min ago"), the absolute time on hover and for screen readers' `datetime`. */
import { absolute, relative, toMs } from './format';
import type { Time } from './types';

export function When({ at, now, prefix = '' }: { at: Time | null | undefined; now?: number; prefix?: string }) {
  const ms = toMs(at);
  if (ms === undefined) return <span class="muted">–</span>;
  return (
    <time dateTime={new Date(ms).toISOString()} title={absolute(ms)} class="when">
      {prefix}
      {relative(ms, now)}
    </time>
  );
}
