/**
 * Cron schedules as the store keeps them: the definition, its version and
 * floor (a change's floor holds for every process), and the last slot fired.
 */

/** A cron schedule as the store holds it (queue.schedule, defineJob's `schedule`). */
export interface ScheduleRecord {
  /** The job name it enqueues; one schedule per name. */
  name: string;
  cron: string;
  /** IANA time zone, or null for the process's local zone. */
  tz: string | null;
  /** JSON text of the payload each job gets. */
  payload: string;
  /** 'skip' | 'one' | 'all' (engine/core/cron.ts). */
  missed: string;
  /** The last slot fired (or skipped) by any process, ms; null until the first. */
  lastSlot: number | null;
  createdAt: number;
  updatedAt: number;
  /** Moves on with every change of the definition (cron, tz, payload, missed): a schedule changed and changed back is at a new version. */
  version: number;
  /** The last slot fired when the definition last changed: no slot at or before it is fired again. */
  floorSlot: number | null;
}

export type NewSchedule = Pick<ScheduleRecord, 'name' | 'cron' | 'tz' | 'payload' | 'missed'>;
