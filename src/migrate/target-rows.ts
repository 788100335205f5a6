/**
 * Source rows as the target's bound arrays (one array per column, in the
 * order of columns.ts), and the moves of the target's identity sequences.
 */
import type { Queryable } from '../store/postgres/driver.js';
import { render } from '../store/postgres/sql.js';
import type { JobRow } from '../store/job-columns.js';
import { asArrays, HISTORY_COLUMNS, JOB_COLUMNS, LOG_COLUMNS, MESSAGE_COLUMNS, STEP_COLUMNS, VALUE_COLUMNS } from './columns.js';
import type { HistoryRow, LogLineRow, MessageRow, StepRow, ValueRow } from './source.js';

export const jobColumns = (jobs: readonly JobRow[]): unknown[][] => asArrays(jobs, JOB_COLUMNS);
export const historyColumns = (rows: readonly HistoryRow[]): unknown[][] => asArrays(rows, HISTORY_COLUMNS);
export const stepColumns = (rows: readonly StepRow[]): unknown[][] => asArrays(rows, STEP_COLUMNS);
export const logColumns = (rows: readonly LogLineRow[]): unknown[][] => asArrays(rows, LOG_COLUMNS);
export const messageColumns = (rows: readonly MessageRow[]): unknown[][] => asArrays(rows, MESSAGE_COLUMNS);
export const valueColumns = (rows: readonly ValueRow[]): unknown[][] => asArrays(rows, VALUE_COLUMNS);

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
