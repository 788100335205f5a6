/** The PostgreSQL store's cron schedules table: the SQLite store's schedule-*.sql, with the same semantics. */
import type { NewSchedule, ScheduleRecord } from '../store.js';
import { toScheduleRecord } from '../sqlite/schedules.js';
import type { Database } from './connect.js';
import { render } from './sql.js';

export function createPostgresSchedules(db: Database, schema: string) {
  const q = (text: string) => render(text, schema);
  const s = {
    // schedule-save.sql: the last slot stays.
    save: q(`INSERT INTO {{schema}}.schedules (name, cron, tz, payload, missed, last_slot, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, NULL, $6, $6)
      ON CONFLICT (name) DO UPDATE SET cron = excluded.cron, tz = excluded.tz, payload = excluded.payload, missed = excluded.missed,
        updated_at = excluded.updated_at
      WHERE (schedules.cron, schedules.tz, schedules.payload, schedules.missed) IS DISTINCT FROM (excluded.cron, excluded.tz, excluded.payload, excluded.missed)`),
    delete: q('DELETE FROM {{schema}}.schedules WHERE name = $1'),
    all: q('SELECT name, cron, tz, payload, missed, last_slot, created_at, updated_at FROM {{schema}}.schedules ORDER BY name'),
    // schedule-fired.sql: never moves back.
    fired: q('UPDATE {{schema}}.schedules SET last_slot = $2, updated_at = $3 WHERE name = $1 AND (last_slot IS NULL OR last_slot < $2)'),
  };
  return {
    saveSchedule: async (schedule: NewSchedule, at: number): Promise<void> => {
      await db.query(s.save, [schedule.name, schedule.cron, schedule.tz, schedule.payload, schedule.missed, at]);
    },
    deleteSchedule: async (name: string): Promise<boolean> => ((await db.query(s.delete, [name])).rowCount ?? 0) > 0,
    schedules: async (): Promise<ScheduleRecord[]> => (await db.rows<Parameters<typeof toScheduleRecord>[0]>(s.all)).map(toScheduleRecord),
    markScheduleFired: async (name: string, slot: number, at: number): Promise<void> => {
      await db.query(s.fired, [name, slot, at]);
    },
  };
}
