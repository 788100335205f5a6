/**
 * The PostgreSQL store's process registry: the worker_processes table of
 * migration 008, with the SQLite store's semantics (sqlite/processes.ts).
 * A heartbeat is one autocommitted statement: the row's upsert, and the
 * deletion of rows gone quiet beside it.
 */
import { PROCESS_DELETE_BEATS, PROCESS_GONE_BEATS, processRow, toProcessRecord, type ProcessRow } from '../process-records.js';
import type { Store } from '../store.js';
import type { Database } from './connect.js';
import { render } from './sql.js';

export function createPostgresProcesses(db: Database, schema: string): Required<Pick<Store, 'beatProcess' | 'removeProcess' | 'processes'>> {
  const q = (text: string) => render(text, schema);
  const s = {
    // process-beat.sql and process-gone.sql. The own row is left out of the deletion: one
    // statement must not both update and delete a row (the snapshot holds its old seen_at).
    beat: q(`WITH gone AS (
        DELETE FROM {{schema}}.worker_processes WHERE owner <> $1 AND seen_at + heartbeat_ms * $10 < $8
      )
      INSERT INTO {{schema}}.worker_processes (owner, host, pid, concurrency, names, version, started_at, seen_at, heartbeat_ms)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
      ON CONFLICT (owner) DO UPDATE SET seen_at = excluded.seen_at`),
    // process-remove.sql
    remove: q('DELETE FROM {{schema}}.worker_processes WHERE owner = $1'),
    // processes.sql
    all: q(`SELECT owner, host, pid, concurrency, names, version, started_at AS "startedAt", seen_at AS "seenAt", heartbeat_ms AS "heartbeatMs"
      FROM {{schema}}.worker_processes WHERE seen_at + heartbeat_ms * $2 >= $1 ORDER BY owner`),
  };
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
