/**
 * Schedules as the store keeps them (job schedulers: several per job name,
 * each by its id): the definition (a cron expression or an interval, its
 * bounds and run limit), its version and floor (a change's floor holds for
 * every process), the last slot fired and how many were.
 */

/** A schedule as the store holds it (queue.schedule, defineJob's `schedule`). */
export interface ScheduleRecord {
  /** The schedule's id: its job name unless it was given one; saving under an id replaces that schedule. */
  id: string;
  /** The job name it enqueues. */
  name: string;
  /** A cron expression, or null for an interval. */
  cron: string | null;
  /** The interval, ms, or null for a cron expression. */
  every: number | null;
  /** IANA time zone, or null for the process's local zone. */
  tz: string | null;
  /** JSON text of the payload each job gets. */
  payload: string;
  /** 'skip' | 'one' | 'all' (engine/core/cron.ts). */
  missed: string;
  /** No slot before it (ms); null: none. */
  startAt: number | null;
  /** No slot after it (ms); null: none. */
  endAt: number | null;
  /** At most this many slots fired in all; null: no limit. */
  limit: number | null;
  /** The first slot at the start (or at the schedule's creation). */
  immediately: boolean;
  /** Slots fired so far (what `limit` counts). */
  fired: number;
  /** The last slot fired (or skipped) by any process, ms; null until the first. */
  lastSlot: number | null;
  createdAt: number;
  updatedAt: number;
  /** Moves on with every change of the definition: a schedule changed and changed back is at a new version. */
  version: number;
  /** The last slot fired when the definition last changed: no slot at or before it is fired again. */
  floorSlot: number | null;
}

export type NewSchedule = Pick<ScheduleRecord, 'id' | 'name' | 'cron' | 'every' | 'tz' | 'payload' | 'missed' | 'startAt' | 'endAt' | 'limit' | 'immediately'>;
