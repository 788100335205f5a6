/**
 * Cron schedules as pure functions of time: checking an expression, the next
 * slot after an instant, and which slots a firing pass turns into jobs. No
 * store and no timers here, so the rules (missed slots, DST, seconds) are
 * tested on plain numbers.
 *
 * Expressions are croner's: five fields (minute first) or six (seconds
 * first). With a time zone, slots follow that zone's wall clock; croner
 * decides the days the clock jumps: a time inside the hour skipped in spring
 * runs at the first wall-clock time after the gap, a time inside the hour
 * repeated in autumn runs once (at its first occurrence), and an hourly or
 * finer schedule runs once per real hour (23 runs on the short day, 25 on the
 * long one). Each slot is one instant, so no slot can come twice.
 */
import { Cron } from 'croner';
import { ValidationError } from '../../errors.js';

/** What happens to slots that came due while no process ran the schedule. */
export type MissedPolicy = 'skip' | 'one' | 'all';
export const MISSED_POLICIES: readonly MissedPolicy[] = ['skip', 'one', 'all'];
export const DEFAULT_MISSED: MissedPolicy = 'one';
/** At most this many slots of one schedule are made into jobs at once (the latest ones): bounds `missed: 'all'` after a long downtime. */
export const MISSED_CAP = 1000;

export interface CronSpec {
  cron: string;
  /** An IANA time zone (`Europe/Berlin`); absent: the process's local zone. */
  tz?: string | null | undefined;
}

const patterns = new Map<string, Cron>();

/** The compiled expression (cached: a firing pass asks for it every time). */
function compile(spec: CronSpec): Cron {
  const id = `${spec.tz ?? ''}\n${spec.cron}`;
  let cron = patterns.get(id);
  if (!cron) {
    cron = new Cron(spec.cron, { paused: true, ...(spec.tz ? { timezone: spec.tz } : {}) });
    if (patterns.size > 1000) patterns.clear();
    patterns.set(id, cron);
  }
  return cron;
}

/**
 * Refuses what croner would not run, with LJ_ERR_BAD_CRON: not five or six
 * fields, a field out of range, an unknown time zone, or an expression that
 * never fires (February 30th).
 */
export function checkCron(what: string, spec: CronSpec, now: number): void {
  if (typeof spec.cron !== 'string' || spec.cron.trim() === '' || spec.cron.length > 200) {
    throw new ValidationError(`${what}: cron must be a non-empty string of at most 200 characters`, 'LJ_ERR_BAD_CRON');
  }
  const fields = spec.cron.trim().split(/\s+/).length;
  if (!spec.cron.trim().startsWith('@') && fields !== 5 && fields !== 6) {
    throw new ValidationError(`${what}: cron "${spec.cron}" must have five fields (minute hour day month weekday) or six (seconds first)`, 'LJ_ERR_BAD_CRON');
  }
  if (spec.tz !== undefined && spec.tz !== null) {
    if (typeof spec.tz !== 'string' || spec.tz === '') throw new ValidationError(`${what}: tz must be an IANA time zone name`, 'LJ_ERR_BAD_CRON');
    try {
      new Intl.DateTimeFormat('en', { timeZone: spec.tz });
    } catch {
      throw new ValidationError(`${what}: tz "${spec.tz}" is not a known time zone`, 'LJ_ERR_BAD_CRON');
    }
  }
  let next: number | null;
  try {
    next = nextCronSlot(spec, now);
  } catch (err) {
    throw new ValidationError(`${what}: cron "${spec.cron}" is not valid: ${(err as Error).message}`, 'LJ_ERR_BAD_CRON', { cause: err });
  }
  if (next === null) throw new ValidationError(`${what}: cron "${spec.cron}" never fires`, 'LJ_ERR_BAD_CRON');
}

/** The first slot strictly after `after` (ms), or null when there is none. */
export function nextCronSlot(spec: CronSpec, after: number): number | null {
  return compile(spec).nextRun(new Date(after))?.getTime() ?? null;
}

/** Slots in (after, now], ascending; only the latest `cap` when there are more. */
export function cronSlotsBetween(spec: CronSpec, after: number, now: number, cap: number): number[] {
  const out: number[] = [];
  for (let slot = nextCronSlot(spec, after); slot !== null && slot <= now; slot = nextCronSlot(spec, slot)) {
    if (out.length === cap) {
      // More than the cap: read the latest ones backwards instead of walking every slot.
      return compile(spec)
        .previousRuns(cap, new Date(now + 1))
        .map((d) => d.getTime())
        .filter((t) => t > after)
        .reverse();
    }
    out.push(slot);
  }
  return out;
}

export interface FiringInput {
  /** The last slot any process fired (or marked as handled); the schedule's creation time if none yet. */
  after: number;
  now: number;
  /**
   * When this process began running schedules. Slots from then on came due
   * while it ran: late or not, they are fired. Earlier ones were missed
   * (no process fired them): `missed` decides.
   */
  runningSince: number;
  missed: MissedPolicy;
}

export interface Firing {
  /** Slots to enqueue a job for, ascending. */
  fire: number[];
  /** The slot to record as the last handled (fired or skipped), or null when none came due. */
  handled: number | null;
}

/**
 * The idempotency key of a slot's job: two processes firing one slot make
 * one job. `id`: the schedule's (its job name, unless it was given one), so
 * a schedule of one's own keeps the keys it always had.
 */
export function slotKey(id: string, slot: number): string {
  return `cron:${id}:${slot}`;
}

/**
 * The slot a schedule's job was made for, read back from its key (slotKey),
 * or null for any other job. It stays the same on every attempt, while the
 * job's `runAt` moves with each retry. (Keys starting `cron:` are the
 * schedules' own: the HTTP API refuses them from callers.)
 */
export function slotOf(key: string | null): number | null {
  const m = key === null ? null : /^cron:.*:(0|[1-9]\d{0,15})$/s.exec(key);
  if (!m) return null;
  const slot = Number(m[1]);
  return Number.isSafeInteger(slot) ? slot : null;
}
