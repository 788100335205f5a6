/**
 * The PostgreSQL store's process registry: the worker_processes table of
 * migration 008, with the SQLite store's semantics (sqlite/processes.ts).
 * A heartbeat is one autocommitted statement: the row's upsert, and the
 * deletion of rows gone quiet beside it.
 */
import { PROCESS_DELETE_BEATS, PROCESS_GONE_BEATS, processRow, toProcessRecord, type ProcessRow } from '../process-records.js';
import type { Store } from '../store.js';
import type { Database } from './open.js';
import { statement } from './sql.js';

export function createPostgresProcesses(db: Database, schema: string): Required<Pick<Store, 'beatProcess' | 'removeProcess' | 'processes'>> {
  const s = { beat: statement('process-beat', schema), remove: statement('process-remove', schema), all: statement('processes', schema) };
  return {
    beatProcess: async (record) => {
      const r = processRow(record);
      await db.query(s.beat, [r.owner, r.host, r.pid, r.concurrency, r.names, r.version, r.startedAt, r.seenAt, r.heartbeatMs, PROCESS_DELETE_BEATS]);
    },
    removeProcess: async (owner) => {
      await db.query(s.remove, [owner]);
    },
    processes: async (now) => (await db.rows<ProcessRow>(s.all, [now, PROCESS_GONE_BEATS])).map(toProcessRecord),
  };
}
