/**
 * When a schedule fires, as pure functions of time: a cron expression
 * (cron.ts) or a fixed interval (`every`), bounded by a start and an end,
 * with the first run at once when asked (`immediately`). No store and no
 * timers here; the run limit is counted where slots are fired
 * (schedule-runner.ts), since it depends on what was fired before.
 *
 * An interval's slots are `startDate + k·every` (k ≥ 0) when the schedule
 * has a start date, else `created + k·every` (k ≥ 1). A cron schedule's
 * slots are its expression's at or after the start date. With `immediately`
 * either has one more: at the start date, or at its creation when the start
 * is past or not given. Neither has slots after the end date. Each slot is one
 * instant, so none can come twice.
 */
import { MISSED_CAP, nextCronSlot, cronSlotsBetween, type Firing, type FiringInput } from './cron.js';

export interface Repeat {
  cron: string | null;
  tz: string | null;
  /** The interval, ms (with `cron` null). */
  every: number | null;
  startAt: number | null;
  endAt: number | null;
  immediately: boolean;
  /** When the schedule was first saved: where an interval without a start date counts from. */
  createdAt: number;
}

/** The slot `immediately` adds, or null: at the start date, or at the creation when the start is past or not given. */
export const firstAtOnce = (r: Repeat): number | null => (r.immediately ? Math.max(r.startAt ?? r.createdAt, r.createdAt) : null);
const inRange = (r: Repeat, slot: number | null): number | null => (slot !== null && (r.endAt === null || slot <= r.endAt) ? slot : null);

/** An interval's first k: at its start date, else one interval after its creation (`immediately` adds a slot of its own). */
function everyBase(r: Repeat): { base: number; k0: number } {
  return r.startAt !== null ? { base: r.startAt, k0: 0 } : { base: r.createdAt, k0: 1 };
}

/** `slot`, or the at-once slot when that comes first after `after`. */
function withAtOnce(r: Repeat, after: number, slot: number | null): number | null {
  const once = firstAtOnce(r);
  return once !== null && once > after && (slot === null || once < slot) ? once : slot;
}

/** `slots` with the at-once slot in (after, until] merged in, ascending. */
function mergeAtOnce(r: Repeat, after: number, until: number, slots: number[]): number[] {
  const once = firstAtOnce(r);
  if (once === null || once <= after || once > until || slots.includes(once)) return slots;
  return [...slots, once].sort((a, b) => a - b);
}

/** The first slot strictly after `after` (ms), or null when there is none. */
export function nextRepeatSlot(r: Repeat, after: number): number | null {
  if (r.every !== null) {
    const { base, k0 } = everyBase(r);
    const k = Math.max(k0, Math.floor((after - base) / r.every) + 1);
    return inRange(r, withAtOnce(r, after, base + k * r.every));
  }
  const spec = { cron: r.cron!, tz: r.tz };
  return inRange(r, withAtOnce(r, after, nextCronSlot(spec, r.startAt !== null ? Math.max(after, r.startAt - 1) : after)));
}

/** Slots in (after, now], ascending; only the latest `cap` when there are more. */
export function repeatSlotsBetween(r: Repeat, after: number, now: number, cap: number): number[] {
  const until = r.endAt === null ? now : Math.min(now, r.endAt);
  if (r.every !== null) {
    const { base, k0 } = everyBase(r);
    const first = Math.max(k0, Math.floor((after - base) / r.every) + 1);
    const last = Math.floor((until - base) / r.every);
    const out: number[] = [];
    // Only the latest `cap`: an interval of a second after a day's downtime is 86,400 slots.
    for (let k = Math.max(first, last - cap + 1); k <= last; k++) out.push(base + k * r.every);
    return mergeAtOnce(r, after, until, out).slice(-cap);
  }
  const spec = { cron: r.cron!, tz: r.tz };
  const from = r.startAt !== null ? Math.max(after, r.startAt - 1) : after;
  return mergeAtOnce(r, after, until, cronSlotsBetween(spec, from, until, cap)).slice(-cap);
}

/** Which due slots a firing pass makes into jobs (the missed policy, as cron.ts planFiring). */
export function planRepeat(r: Repeat, input: FiringInput): Firing {
  const due = repeatSlotsBetween(r, input.after, input.now, MISSED_CAP);
  if (due.length === 0) return { fire: [], handled: null };
  // The at-once slot is the schedule's first, due as it is saved: never a missed one (a queue saves its definitions' just before it starts firing).
  const once = firstAtOnce(r);
  const missed = due.filter((slot) => slot < input.runningSince && slot !== once);
  const onTime = due.filter((slot) => slot >= input.runningSince || slot === once);
  const keep = input.missed === 'skip' ? [] : input.missed === 'one' ? missed.slice(-1) : missed;
  return { fire: [...keep, ...onTime].slice(-MISSED_CAP), handled: due[due.length - 1]! };
}
