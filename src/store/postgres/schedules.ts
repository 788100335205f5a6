/** The PostgreSQL store's cron schedules table: the SQLite store's schedule-*.sql, with the same semantics. */
import type { InsertResult, NewJob, NewSchedule, ScheduleRecord } from '../store.js';
import { toScheduleRecord } from '../rows.js';
import type { Database } from './connect.js';
import type { Queryable } from './driver.js';
import { insertJobs, type InsertStatements } from './insert.js';
import { checkStorable } from './storable.js';
import { render } from './sql.js';

/** `notify`: tells other instances of new jobs, inside the transaction (delivered at its commit). */
export function createPostgresSchedules(db: Database, schema: string, insertSql: InsertStatements, notify: (client: Queryable) => Promise<unknown>) {
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
    // schedule-current.sql, and the row stays as read until the firing commits (a save or delete waits).
    current: q(`SELECT 1 FROM {{schema}}.schedules
      WHERE name = $1 AND cron = $2 AND tz IS NOT DISTINCT FROM $3 AND payload = $4 AND missed = $5 FOR UPDATE`),
    // schedule-fired.sql: never moves back.
    fired: q('UPDATE {{schema}}.schedules SET last_slot = $2, updated_at = $3 WHERE name = $1 AND (last_slot IS NULL OR last_slot < $2)'),
  };
  return {
    saveSchedule: async (schedule: NewSchedule, at: number): Promise<void> => {
      checkStorable([schedule]); // its slots' jobs take this payload
      await db.query(s.save, [schedule.name, schedule.cron, schedule.tz, schedule.payload, schedule.missed, at]);
    },
    deleteSchedule: async (name: string): Promise<boolean> => ((await db.query(s.delete, [name])).rowCount ?? 0) > 0,
    schedules: async (): Promise<ScheduleRecord[]> => (await db.rows<Parameters<typeof toScheduleRecord>[0]>(s.all)).map(toScheduleRecord),
    fireSchedule: async (read: ScheduleRecord, jobs: readonly NewJob[], slot: number, at: number): Promise<InsertResult[] | null> =>
      db.tx(async (client) => {
        if ((await client.query(s.current, [read.name, read.cron, read.tz, read.payload, read.missed])).rowCount !== 1) return null;
        const results = jobs.length > 0 ? await insertJobs(client, insertSql, jobs, at) : [];
        if (results.some((r) => r.created)) await notify(client);
        await client.query(s.fired, [read.name, slot, at]);
        return results;
      }),
  };
}
