/**
 * The PostgreSQL store's job logs (ctx.log): the job_logs table of migration
 * 007, with the SQLite store's semantics (sqlite/logs.ts).
 *
 * An append locks its jobs' rows first, in id order, then numbers each
 * job's lines after its stored ones in a statement of its own: under READ
 * COMMITTED that statement sees the lines another process appended to the
 * same job (an expired lease's run beside the next one) before it took the
 * lock, where one statement doing both would number from an older snapshot.
 */
import type { Store } from '../store.js';
import { toLogRecord, type LogRow } from '../rows.js';
import type { Database } from './open.js';
import { statement } from './sql.js';

export function createPostgresLogs(db: Database, schema: string): Pick<Store, 'appendLogs' | 'jobLogs'> {
  const s = { lock: statement('logs-lock', schema), append: statement('append-logs', schema), page: statement('logs', schema) };
  return {
    appendLogs: async (items, keep) => {
      const columns: unknown[][] = [[], [], [], [], [], [], []];
      // A job named twice (two runs of it flushed together) numbers its second run's lines after its first's.
      const used = new Map<number, number>();
      for (const item of items) {
        let rel = (used.get(item.id) ?? 0) + item.skipped;
        for (const l of item.lines) {
          const row = [item.id, item.attempt, ++rel, l.at, l.level, l.message, l.fields];
          for (let c = 0; c < row.length; c++) columns[c]!.push(row[c]);
        }
        used.set(item.id, rel);
      }
      if (columns[0]!.length === 0) return;
      const ids = [...used.keys()];
      await db.tx(async (client) => {
        await client.query(s.lock, [ids]);
        await client.query(s.append, [...columns, keep]);
      });
    },
    jobLogs: async (id, { after, limit }) => {
      const rows = await db.rows<{ first: number | null } & Partial<LogRow>>(s.page, [id, after, limit]);
      const first = rows[0]?.first;
      return { lines: rows.filter((r) => r.seq != null).map((r) => toLogRecord(r as LogRow)), dropped: first == null ? 0 : Number(first) - 1 };
    },
  };
}
