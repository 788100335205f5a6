/** The SQLite store's process registry (see sql/migrations/012_workers.sql and process-records.ts). */
import type Database from 'better-sqlite3';
import type { WorkerProcessRecord } from '../store.js';
import { PROCESS_DELETE_BEATS, PROCESS_GONE_BEATS, processRow, toProcessRecord, type ProcessRow } from '../process-records.js';
import { sql } from './sql.js';

export interface SqliteProcesses {
  beatProcess(record: WorkerProcessRecord): Promise<void>;
  removeProcess(owner: string): Promise<void>;
  processes(now: number): Promise<WorkerProcessRecord[]>;
}

export function createSqliteProcesses(db: Database.Database): SqliteProcesses {
  const s = {
    beat: db.prepare(sql('process-beat')),
    gone: db.prepare(sql('process-gone')),
    remove: db.prepare(sql('process-remove')),
    all: db.prepare(sql('processes')),
  };
  const beatTx = db.transaction((record: WorkerProcessRecord) => {
    s.beat.run(processRow(record));
    s.gone.run({ now: record.seenAt, beats: PROCESS_DELETE_BEATS });
  });
  return {
    beatProcess: async (record) => beatTx.immediate(record),
    removeProcess: async (owner) => void s.remove.run({ owner }),
    processes: async (now) => (s.all.all({ now, beats: PROCESS_GONE_BEATS }) as ProcessRow[]).map(toProcessRecord),
  };
}
