/** The PostgreSQL store's schedules table: the SQLite store's schedule-*.sql, with the same semantics. */
import type { InsertResult, NewJob, NewSchedule, ScheduleRecord } from '../store.js';
import { toScheduleRecord } from '../rows.js';
import type { Database } from './open.js';
import type { Queryable } from './driver.js';
import { insertJobs, type InsertStatements } from './insert.js';
import { checkStorable } from './storable.js';
import { statement } from './sql.js';

/** `notify`: tells other instances of new jobs, inside the transaction (delivered at its commit). */
export function createPostgresSchedules(db: Database, schema: string, insertSql: InsertStatements, notify: (client: Queryable) => Promise<unknown>) {
  const q = (name: string) => statement(name, schema);
  const s = { save: q('schedule-save'), delete: q('schedule-delete'), all: q('schedules'), current: q('schedule-current'), fired: q('schedule-fired') };
  return {
    saveSchedule: async (schedule: NewSchedule, at: number): Promise<void> => {
      checkStorable([schedule]); // its slots' jobs take this payload
      const { id, name, cron, every, tz, payload, missed, startAt, endAt, limit, immediately } = schedule;
      await db.query(s.save, [id, name, cron, every, tz, payload, missed, startAt, endAt, limit, immediately, at]);
    },
    deleteSchedule: async (id: string): Promise<boolean> => ((await db.query(s.delete, [id])).rowCount ?? 0) > 0,
    schedules: async (): Promise<ScheduleRecord[]> => (await db.rows<Parameters<typeof toScheduleRecord>[0]>(s.all)).map(toScheduleRecord),
    fireSchedule: async (read: ScheduleRecord, jobs: readonly NewJob[], slot: number, at: number): Promise<InsertResult[] | null> =>
      db.tx(async (client) => {
        if ((await client.query(s.current, [read.id, read.version, read.createdAt, read.fired])).rowCount !== 1) return null;
        const results = jobs.length > 0 ? await insertJobs(client, insertSql, jobs, at) : [];
        if (results.some((r) => r.created)) await notify(client);
        await client.query(s.fired, [read.id, slot, at, results.filter((r) => r.created).length]);
        return results;
      }),
  };
}
