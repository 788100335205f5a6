/**
 * Source rows as the target's bound arrays (one array per column, in the
 * order of target-sql.ts), and the moves of the target's identity sequences.
 */
import type { Queryable } from '../store/postgres/driver.js';
import { render } from '../store/postgres/sql.js';
import type { JobRow } from '../store/sqlite/rows.js';
import type { HistoryRow } from './source.js';

export function jobColumns(jobs: readonly JobRow[]): unknown[][] {
  const col = <T>(pick: (j: JobRow) => T) => jobs.map(pick);
  return [
    col((j) => j.id),
    col((j) => j.name),
    col((j) => j.state),
    col((j) => j.payload),
    col((j) => j.key),
    col((j) => j.priority),
    col((j) => j.run_at),
    col((j) => j.attempts),
    col((j) => j.last_error),
    col((j) => j.ctx),
    col((j) => j.retry),
    col((j) => j.timeout_ms),
    col((j) => j.result),
    col((j) => j.progress),
    col((j) => j.lease_owner),
    col((j) => j.lease_token),
    col((j) => j.locked_until),
    col((j) => j.created_at),
    col((j) => j.updated_at),
  ];
}

export function historyColumns(rows: readonly HistoryRow[]): unknown[][] {
  const col = <T>(pick: (h: HistoryRow) => T) => rows.map(pick);
  return [
    col((h) => h.id),
    col((h) => h.job_id),
    col((h) => h.from_state),
    col((h) => h.to_state),
    col((h) => h.event),
    col((h) => h.candidate),
    col((h) => h.at),
    col((h) => h.worker_id),
    col((h) => h.lease_token),
    col((h) => h.error),
  ];
}

type IdentityTable = 'jobs' | 'job_history';

/**
 * Moves a table's identity sequence forward so that its next id is above
 * `atLeast`; never backwards. Rows inserted with OVERRIDING SYSTEM VALUE do
 * not move it by themselves, and a later insert by a queue would then take
 * an id already copied.
 */
export function identityMover(schema: string, sequenceSql: string) {
  const names = new Map<IdentityTable, string>();
  /** The highest id the sequence has handed out (or will not hand out). */
  const high = async (client: Queryable, sequence: string) => {
    const [row] = (await client.query<{ last_value: number; is_called: boolean }>(`SELECT last_value, is_called FROM ${sequence}`)).rows;
    return row!.is_called ? row!.last_value : row!.last_value - 1;
  };
  return {
    async advance(client: Queryable, table: IdentityTable, atLeast: number): Promise<void> {
      const qualified = render(`{{schema}}.${table}`, schema);
      let sequence = names.get(table);
      if (sequence === undefined) {
        const [row] = (await client.query<{ seq: string }>(sequenceSql, [qualified])).rows;
        sequence = row!.seq;
        names.set(table, sequence);
      }
      if (atLeast <= (await high(client, sequence))) return;
      // SHARE mode waits for the inserts under way and holds off new ones until
      // this transaction ends: no id is handed out between the read and setval.
      await client.query(`LOCK TABLE ${qualified} IN SHARE MODE`);
      if (atLeast <= (await high(client, sequence))) return;
      await client.query('SELECT setval($1::regclass, $2, true)', [sequence, atLeast]);
    },
  };
}
