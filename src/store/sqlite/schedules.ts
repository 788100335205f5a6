/** The SQLite store's cron schedules table (see sql/migrations/007_cron_schedules.sql). */
import type Database from 'better-sqlite3';
import type { InsertResult, NewJob, NewSchedule, ScheduleRecord } from '../store.js';
import type { SqliteInsert } from './insert.js';
import { toScheduleRecord, type ScheduleRow } from '../rows.js';
import { sql } from './sql.js';

export interface SqliteSchedules {
  save(schedule: NewSchedule, at: number): void;
  delete(name: string): boolean;
  all(): ScheduleRecord[];
  /** Store.fireSchedule, in one BEGIN IMMEDIATE transaction. */
  fire(read: ScheduleRecord, jobs: readonly NewJob[], slot: number, at: number): InsertResult[] | null;
}

export function createSqliteSchedules(db: Database.Database, insert: SqliteInsert): SqliteSchedules {
  const s = {
    save: db.prepare(sql('schedule-save')),
    delete: db.prepare(sql('schedule-delete')),
    all: db.prepare(sql('schedules')),
    current: db.prepare(sql('schedule-current')),
    fired: db.prepare(sql('schedule-fired')),
  };
  const fireTx = db.transaction((read: ScheduleRecord, jobs: readonly NewJob[], slot: number, at: number): InsertResult[] | null => {
    if (s.current.get({ name: read.name, version: read.version, createdAt: read.createdAt }) === undefined) return null;
    const results = jobs.length > 0 ? insert(jobs, at) : [];
    s.fired.run({ name: read.name, slot, at });
    return results;
  });
  return {
    save: (schedule, at) => {
      s.save.run({ name: schedule.name, cron: schedule.cron, tz: schedule.tz, payload: schedule.payload, missed: schedule.missed, at });
    },
    delete: (name) => s.delete.run({ name }).changes > 0,
    all: () => (s.all.all() as ScheduleRow[]).map(toScheduleRecord),
    fire: (read, jobs, slot, at) => fireTx.immediate(read, jobs, slot, at),
  };
}
