/** The SQLite store's job logs (ctx.log): the job_logs table of migration 011. */
import type Database from 'better-sqlite3';
import type { LogAppend, Store } from '../store.js';
import { sql } from './sql.js';
import { toLogRecord, type LogRow } from '../rows.js';

/** An append's lines as append-logs.sql takes them: one JSON array. */
export const linesJson = (item: LogAppend): string => JSON.stringify(item.lines.map((l) => [l.at, l.level, l.message, l.fields]));

export function createSqliteLogs(db: Database.Database): Pick<Store, 'appendLogs' | 'jobLogs'> {
  const s = {
    append: db.prepare(sql('append-logs')),
    trim: db.prepare(sql('trim-logs')),
    page: db.prepare(sql('logs')),
    first: db.prepare(sql('logs-first')).pluck(),
  };
  // One write transaction for the lines of every run that flushed at the same time.
  const appendTx = db.transaction((items: readonly LogAppend[], keep: number) => {
    for (const item of items) {
      if (item.lines.length === 0) continue;
      if (s.append.run({ id: item.id, attempt: item.attempt, skipped: item.skipped, lines: linesJson(item) }).changes > 0) s.trim.run({ id: item.id, keep });
    }
  });
  // Both reads in one read transaction: the count of dropped lines agrees with the page.
  const readTx = db.transaction((id: number, after: number, limit: number) => {
    const lines = (s.page.all({ id, after, limit }) as LogRow[]).map(toLogRecord);
    const first = s.first.get({ id }) as number | null;
    return { lines, dropped: first === null ? 0 : first - 1 };
  });
  return {
    appendLogs: async (items, keep) => {
      if (items.some((i) => i.lines.length > 0)) appendTx.immediate(items, keep);
    },
    jobLogs: async (id, { after, limit }) => readTx(id, after, limit),
  };
}
