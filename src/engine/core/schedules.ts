/**
 * Schedules at the public boundary (BullMQ's job schedulers): their options
 * and checks, the rows they become in the store, and the view
 * `queue.schedules()` returns. A schedule repeats by a cron expression or a
 * fixed interval (`every`), between an optional start and end, at most
 * `limit` times; a job name may have several, each under its own id.
 */
import { ValidationError } from '../../errors.js';
import { MAX_DATE_MS, parseDuration, type Duration } from '../../lib/duration.js';
import { isoDate } from '../../lib/iso-date.js';
import type { NewSchedule, ScheduleRecord } from '../../store/store.js';
import { checkCron, DEFAULT_MISSED, MISSED_POLICIES, type MissedPolicy } from './cron.js';
import { nextRepeatSlot, type Repeat } from './repeat.js';
import { checkInteger, checkString, rejectUnknownOptions, serializePayload } from '../../lib/validate.js';

/** `queue.schedule(name, repeat, options)`. */
export interface ScheduleOptions<P = unknown> {
  /**
   * The schedule's id. Default: the job name. Saving under an id replaces
   * that schedule (an upsert), so a job name can have several schedules,
   * each with an id of its own.
   */
  id?: string;
  /** An IANA time zone whose wall clock a cron expression follows (`'Europe/Berlin'`). Default: the process's local zone. */
  tz?: string;
  /** The payload of every job the schedule enqueues. Default `null`. */
  payload?: P;
  /**
   * Slots that came due while no process ran the schedule (downtime):
   * `'skip'` enqueues none of them, `'one'` (default) one job for the latest,
   * `'all'` one job per missed slot, at most 1000 (the latest).
   */
  missed?: MissedPolicy;
  /** At most this many jobs in all, whichever processes fire them; then the schedule stops. */
  limit?: number;
  /** No job before this time (a Date, ms since the epoch, or an ISO 8601 string); an interval counts from it. */
  startDate?: Date | number | string;
  /** No job after this time. */
  endDate?: Date | number | string;
  /** The first job at once (at `startDate`, when given), then as the schedule repeats. */
  immediately?: boolean;
}

/** How a schedule repeats: a cron expression, or a fixed interval. */
export type ScheduleRepeat = string | { cron: string } | { every: Duration };

/** `defineJob({ schedule })`: a cron expression or an interval, with the options (its id is the job name). */
export interface JobSchedule<P = unknown> extends Omit<ScheduleOptions<P>, 'id'> {
  /** Five fields (`'*\/5 * * * *'`: minute hour day month weekday) or six, seconds first (`'*\/10 * * * * *'`). */
  cron?: string;
  /** A fixed interval instead: ms, or `'30s'`, `'5m'`, `'1h'` (at least a second). */
  every?: Duration;
}

/** A schedule as `queue.schedules()` returns it. */
export interface ScheduleView {
  id: string;
  /** The job name it enqueues. */
  name: string;
  cron: string | null;
  /** The interval, ms (a schedule by `every`); null for a cron expression. */
  every: number | null;
  tz: string | null;
  payload: unknown;
  missed: MissedPolicy;
  limit: number | null;
  /** Jobs fired so far (what `limit` counts). */
  count: number;
  startDate: Date | null;
  endDate: Date | null;
  immediately: boolean;
  /** The latest slot fired (or skipped after downtime) by any process; null before the first. */
  lastRunAt: Date | null;
  /** The next slot after now; null if the schedule fires no more. */
  nextRunAt: Date | null;
}

const OPTION_KEYS = ['id', 'tz', 'payload', 'missed', 'limit', 'startDate', 'endDate', 'immediately'] as const;
/** The shortest interval: a second, as a cron expression's finest. */
const MIN_EVERY_MS = 1000;
/** The longest: a thousand years (a slot a step past a date's range would read as no date). */
const MAX_EVERY_MS = 1000 * 365 * 86_400_000;

function checkDate(what: string, value: unknown): number | null {
  if (value === undefined) return null;
  // A string is ISO 8601 (`2027-01-04`, `2027-01-04T06:00:00Z`): not whatever Date.parse makes of "1" or "June 5".
  const ms = value instanceof Date ? value.getTime() : typeof value === 'string' ? (isoDate(value)?.getTime() ?? Number.NaN) : value;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0 || ms > MAX_DATE_MS) throw new ValidationError(`${what} must be a date (a Date, ms since the epoch, or an ISO 8601 string), got ${JSON.stringify(value)}`);
  return Math.round(ms);
}

/** The repeat rule of a stored schedule. */
export function repeatOf(r: ScheduleRecord): Repeat {
  return { cron: r.cron, tz: r.tz, every: r.every, startAt: r.startAt, endAt: r.endAt, immediately: r.immediately, createdAt: r.createdAt };
}

/**
 * Checks a schedule's repeat rule and options; the row to store. Throws
 * ValidationError before anything is written. `now`: a schedule that would
 * never fire from then on is refused (`null`: its shape only, for a
 * definition, whose end may pass while the application still ships it).
 */
export function checkSchedule(what: string, name: unknown, repeat: unknown, options: unknown, now: number | null, maxPayloadBytes = Number.POSITIVE_INFINITY): NewSchedule {
  checkString(`${what} name`, name, 200);
  const o = (options ?? {}) as ScheduleOptions;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new ValidationError(`${what} options must be an object`);
  rejectUnknownOptions(`${what} options`, o, OPTION_KEYS);
  const id = o.id === undefined ? (name as string) : checkString(`${what} id`, o.id, 200);
  const missed = o.missed === undefined ? DEFAULT_MISSED : o.missed;
  if (!MISSED_POLICIES.includes(missed)) throw new ValidationError(`${what}: missed must be one of ${MISSED_POLICIES.map((m) => `'${m}'`).join(', ')}, got ${String(missed)}`);
  let cron: string | null = null;
  let every: number | null = null;
  if (typeof repeat === 'string') cron = repeat;
  else if (typeof repeat === 'object' && repeat !== null && !Array.isArray(repeat)) {
    rejectUnknownOptions(`${what} repeat`, repeat, ['cron', 'every']);
    const r = repeat as { cron?: unknown; every?: unknown };
    if ((r.cron === undefined) === (r.every === undefined)) throw new ValidationError(`${what}: give cron or every (one of them)`);
    if (r.cron !== undefined) cron = r.cron as string;
    else {
      every = parseDuration(`${what} every`, r.every);
      if (every < MIN_EVERY_MS || every > MAX_EVERY_MS) throw new ValidationError(`${what} every must be between a second ('1s') and a thousand years, got ${JSON.stringify(r.every)}`);
    }
  } else throw new ValidationError(`${what}: repeat with a cron expression (a string) or { every: '5m' }`, 'LJ_ERR_BAD_CRON');
  if (cron !== null) checkCron(what, { cron, tz: o.tz }, now ?? 0);
  else if (o.tz !== undefined) throw new ValidationError(`${what}: tz is for a cron expression, not every`);
  const limit = o.limit === undefined ? null : checkInteger(`${what} limit`, o.limit, 1, 1_000_000_000);
  const startAt = checkDate(`${what} startDate`, o.startDate);
  const endAt = checkDate(`${what} endDate`, o.endDate);
  if (endAt !== null && startAt !== null && endAt < startAt) throw new ValidationError(`${what}: endDate comes before startDate`);
  if (o.immediately !== undefined && typeof o.immediately !== 'boolean') throw new ValidationError(`${what} immediately must be a boolean`);
  if (now !== null) {
    // As if saved now: no slot from here to its end, and it never fires.
    const fresh: Repeat = { cron, tz: o.tz ?? null, every, startAt, endAt, immediately: o.immediately === true, createdAt: now };
    if (nextRepeatSlot(fresh, now - 1) === null) throw new ValidationError(`${what}: it would never fire${endAt !== null && endAt <= now ? ' (its endDate has passed)' : ' before its endDate'}`);
  }
  return {
    id,
    name: name as string,
    cron: cron === null ? null : cron.trim(),
    every,
    tz: o.tz ?? null,
    payload: serializePayload(o.payload, maxPayloadBytes),
    missed,
    startAt,
    endAt,
    limit,
    immediately: o.immediately === true,
  };
}

/** `defineJob`'s `schedule`: an object with `cron` or `every` and the options (`now`: as checkSchedule's). */
export function checkJobSchedule(jobName: string, schedule: unknown, now: number | null): NewSchedule {
  const what = `job "${jobName}" schedule`;
  if (typeof schedule !== 'object' || schedule === null || Array.isArray(schedule)) throw new ValidationError(`${what} must be an object { cron or every, tz?, payload?, missed?, limit?, startDate?, endDate?, immediately? }`);
  rejectUnknownOptions(what, schedule, ['cron', 'every', ...OPTION_KEYS.filter((k) => k !== 'id')]);
  const { cron, every, ...options } = schedule as JobSchedule;
  return checkSchedule(what, jobName, every === undefined ? (cron === undefined ? {} : cron) : cron === undefined ? { every } : { cron, every }, options, now);
}

export function toScheduleView(record: ScheduleRecord, now: number): ScheduleView {
  let next: number | null = null;
  try {
    const spent = record.limit !== null && record.fired >= record.limit;
    const r = repeatOf(record);
    // Before its first slot fired, an at-once slot already past is the next one: due now.
    const after = record.lastSlot === null && r.immediately ? r.createdAt - 1 : Math.max(now, record.lastSlot ?? Number.NEGATIVE_INFINITY);
    next = spent ? null : nextRepeatSlot(r, after);
  } catch {
    // written by a version that accepted it: shown without a next run
  }
  const date = (ms: number | null) => (ms === null ? null : new Date(ms));
  return {
    id: record.id,
    name: record.name,
    cron: record.cron,
    every: record.every,
    tz: record.tz,
    payload: JSON.parse(record.payload),
    missed: (MISSED_POLICIES as readonly string[]).includes(record.missed) ? (record.missed as MissedPolicy) : DEFAULT_MISSED,
    limit: record.limit,
    count: record.fired,
    startDate: date(record.startAt),
    endDate: date(record.endAt),
    immediately: record.immediately,
    lastRunAt: date(record.lastSlot),
    nextRunAt: date(next),
  };
}
