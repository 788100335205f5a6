/**
 * Cron schedules at the public boundary: their options and checks, the rows
 * they become in the store, and the view `queue.schedules()` returns.
 */
import { ValidationError } from '../../errors.js';
import type { NewSchedule, ScheduleRecord } from '../../store/store.js';
import { checkCron, DEFAULT_MISSED, MISSED_POLICIES, nextSlot, type MissedPolicy } from './cron.js';
import { checkString, rejectUnknownOptions, serializePayload } from '../../lib/validate.js';

/** `queue.schedule(name, cron, options)`. */
export interface ScheduleOptions<P = unknown> {
  /** An IANA time zone whose wall clock the expression follows (`'Europe/Berlin'`). Default: the process's local zone. */
  tz?: string;
  /** The payload of every job the schedule enqueues. Default `null`. */
  payload?: P;
  /**
   * Slots that came due while no process ran the schedule (downtime):
   * `'skip'` enqueues none of them, `'one'` (default) one job for the latest,
   * `'all'` one job per missed slot, at most 1000 (the latest).
   */
  missed?: MissedPolicy;
}

/** `defineJob({ schedule })`: the expression with the same options. */
export interface JobSchedule<P = unknown> extends ScheduleOptions<P> {
  /** Five fields (`'*\/5 * * * *'`: minute hour day month weekday) or six, seconds first (`'*\/10 * * * * *'`). */
  cron: string;
}

/** A schedule as `queue.schedules()` returns it. */
export interface ScheduleView {
  name: string;
  cron: string;
  tz: string | null;
  payload: unknown;
  missed: MissedPolicy;
  /** The latest slot fired (or skipped after downtime) by any process; null before the first. */
  lastRunAt: Date | null;
  /** The next slot after now; null if the expression fires no more. */
  nextRunAt: Date | null;
}

const OPTION_KEYS = ['tz', 'payload', 'missed'] as const;

/** Checks a schedule's expression and options; the row to store. Throws ValidationError before anything is written. */
export function checkSchedule(what: string, name: unknown, cron: unknown, options: unknown, now: number, maxPayloadBytes = Number.POSITIVE_INFINITY): NewSchedule {
  checkString(`${what} name`, name, 200);
  const o = (options ?? {}) as ScheduleOptions;
  rejectUnknownOptions(`${what} options`, o, OPTION_KEYS);
  const missed = o.missed ?? DEFAULT_MISSED;
  if (!MISSED_POLICIES.includes(missed)) throw new ValidationError(`${what}: missed must be one of ${MISSED_POLICIES.map((m) => `'${m}'`).join(', ')}, got ${String(missed)}`);
  checkCron(what, { cron: cron as string, tz: o.tz }, now);
  return { name: name as string, cron: (cron as string).trim(), tz: o.tz ?? null, payload: serializePayload(o.payload, maxPayloadBytes), missed };
}

/** `defineJob`'s `schedule`: an object with `cron` and the options. */
export function checkJobSchedule(jobName: string, schedule: unknown, now: number): NewSchedule {
  const what = `job "${jobName}" schedule`;
  if (typeof schedule !== 'object' || schedule === null || Array.isArray(schedule)) throw new ValidationError(`${what} must be an object { cron, tz?, payload?, missed? }`);
  rejectUnknownOptions(what, schedule, ['cron', ...OPTION_KEYS]);
  const { cron, ...options } = schedule as JobSchedule;
  return checkSchedule(what, jobName, cron, options, now);
}

export function toScheduleView(record: ScheduleRecord, now: number): ScheduleView {
  const spec = { cron: record.cron, tz: record.tz };
  let next: number | null = null;
  try {
    next = nextSlot(spec, now);
  } catch {
    // written by a version that accepted it: shown without a next run
  }
  return {
    name: record.name,
    cron: record.cron,
    tz: record.tz,
    payload: JSON.parse(record.payload),
    missed: (MISSED_POLICIES as readonly string[]).includes(record.missed) ? (record.missed as MissedPolicy) : DEFAULT_MISSED,
    lastRunAt: record.lastSlot === null ? null : new Date(record.lastSlot),
    nextRunAt: next === null ? null : new Date(next),
  };
}
