/**
 * `litejobs migrate` carries every column the two stores' tables share: its
 * lists (src/migrate/columns.ts) are compared with a fresh SQLite file's
 * tables and a fresh PostgreSQL schema's, so a column added to either store
 * cannot be left out of the copy unnoticed.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createQueue } from '../../src/index.js';
import { HISTORY_COLUMNS, JOB_COLUMNS, LOG_COLUMNS, MESSAGE_COLUMNS, SQLITE_ONLY_COLUMNS, STEP_COLUMNS, VALUE_COLUMNS } from '../../src/migrate/columns.js';
import { pgRows } from '../helpers/migrate.js';
import { pgUrl, usePgSchema } from '../helpers/postgres.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';

const schema = usePgSchema();

describe('the columns migrate copies', () => {
  it('are every column of jobs, job_history, job_steps and job_logs in both stores, but SQLite-only ones', async () => {
    const file = tempDbPath();
    const name = schema();
    const sqliteQueue = createQueue({ path: file.path, logger: silentLogger });
    const pgQueue = createQueue({ connection: pgUrl(), schema: name, logger: silentLogger });
    try {
      await pgQueue.ping();
      const db = new Database(file.path, { readonly: true });
      const sqliteColumns = (table: string) => (db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[]).sort();
      const pgColumns = async (table: string) =>
        (await pgRows<{ column_name: string }>('SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2', [name, table]))
          .map((r) => r.column_name)
          .sort();
      expect(sqliteColumns('job_steps')).toEqual(Object.keys(STEP_COLUMNS).sort());
      expect(await pgColumns('job_steps')).toEqual(Object.keys(STEP_COLUMNS).sort());
      expect(sqliteColumns('job_logs')).toEqual(Object.keys(LOG_COLUMNS).sort());
      // A mailbox's message number is the target's own (it numbers them anew, in the order sent).
      expect(sqliteColumns('job_messages')).toEqual([...Object.keys(MESSAGE_COLUMNS), 'seq'].sort());
      expect(await pgColumns('job_messages')).toEqual([...Object.keys(MESSAGE_COLUMNS), 'seq'].sort());
      expect(sqliteColumns('job_values')).toEqual(Object.keys(VALUE_COLUMNS).sort());
      expect(await pgColumns('job_values')).toEqual(Object.keys(VALUE_COLUMNS).sort());
      expect(await pgColumns('job_logs')).toEqual(Object.keys(LOG_COLUMNS).sort());
      expect(sqliteColumns('jobs')).toEqual([...Object.keys(JOB_COLUMNS), ...SQLITE_ONLY_COLUMNS.jobs].sort());
      expect(sqliteColumns('job_history')).toEqual([...Object.keys(HISTORY_COLUMNS), ...SQLITE_ONLY_COLUMNS.job_history].sort());
      expect(await pgColumns('jobs')).toEqual(Object.keys(JOB_COLUMNS).sort());
      expect(await pgColumns('job_history')).toEqual(Object.keys(HISTORY_COLUMNS).sort());
      db.close();
    } finally {
      await Promise.all([sqliteQueue.close(), pgQueue.close()]);
      file.cleanup();
    }
  });
});
