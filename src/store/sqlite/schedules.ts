/** The SQLite store's schedules table (sql/migrations/007_cron_schedules.sql, 018_job_schedulers.sql). */
import type Database from 'better-sqlite3';
import type { InsertResult, NewJob, NewSchedule, ScheduleRecord } from '../store.js';
import type { SqliteInsert } from './insert.js';
import { toScheduleRecord, type ScheduleRow } from '../rows.js';
import { sql } from './sql.js';

export interface SqliteSchedules {
  save(schedule: NewSchedule, at: number): void;
  delete(id: string): boolean;
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
    if (s.current.get({ id: read.id, version: read.version, createdAt: read.createdAt, fired: read.fired }) === undefined) return null;
    const results = jobs.length > 0 ? insert(jobs, at) : [];
    s.fired.run({ id: read.id, slot, at, n: results.filter((r) => r.created).length });
    return results;
  });
  return {
    save: (schedule, at) => {
      const { id, name, cron, every, tz, payload, missed, startAt, endAt, limit } = schedule;
      s.save.run({ id, name, cron, every, tz, payload, missed, startAt, endAt, limit, immediately: schedule.immediately ? 1 : 0, at });
    },
    delete: (id) => s.delete.run({ id }).changes > 0,
    all: () => (s.all.all() as ScheduleRow[]).map(toScheduleRecord),
    fire: (read, jobs, slot, at) => fireTx.immediate(read, jobs, slot, at),
  };
}
