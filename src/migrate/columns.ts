/**
 * The columns the copy carries, with their PostgreSQL types: every column the
 * two stores' tables share (src/store/sqlite/schema.sql and
 * src/store/postgres/sql/migrations/). SQLite's `jobs.indexed` (its deferred
 * claim index) has no counterpart. A test compares these lists with both
 * stores' tables, so a column added to either one cannot be left behind.
 */
import { JOB_COLUMNS as JOB_COLUMN_LIST } from '../store/job-columns.js';

/** The columns of `jobs`, as src/store/job-columns.ts lists them for both stores. */
export const JOB_COLUMNS: Columns = Object.fromEntries(Object.entries(JOB_COLUMN_LIST).map(([column, { type }]) => [column, type]));

export const HISTORY_COLUMNS = {
  id: 'bigint',
  job_id: 'bigint',
  from_state: 'text',
  to_state: 'text',
  event: 'text',
  candidate: 'int',
  at: 'bigint',
  worker_id: 'text',
  lease_token: 'text',
  error: 'text',
  /** A progress update's value (event job.progress). */
  data: 'text',
} as const;

/** A job's completed steps (ctx.step, ctx.sleep), copied with the job. */
export const STEP_COLUMNS = {
  job_id: 'bigint',
  name: 'text',
  seq: 'int',
  result: 'text',
  wake_at: 'bigint',
  attempt: 'int',
  at: 'bigint',
} as const;

/** A job's log lines (ctx.log), copied with the job. */
export const LOG_COLUMNS = {
  job_id: 'bigint',
  seq: 'bigint',
  at: 'bigint',
  attempt: 'int',
  level: 'text',
  message: 'text',
  fields: 'text',
} as const;

/** A job's mailbox (queue.signal): its messages, taken or not, in the order sent (the target numbers them anew). */
export const MESSAGE_COLUMNS = {
  job_id: 'bigint',
  topic: 'text',
  data: 'text',
  key: 'text',
  sent_at: 'bigint',
  taken_by: 'text',
} as const;

/** The values a job published (ctx.publish), copied with the job. */
export const VALUE_COLUMNS = {
  job_id: 'bigint',
  key: 'text',
  value: 'text',
  at: 'bigint',
} as const;

/** The limits table (rate-limit buckets, pauses, group concurrency), copied as it is on the first run. */
export const LIMIT_COLUMNS = {
  kind: 'text',
  key: 'text',
  concurrency: 'int',
  spent: 'text',
  paused_until: 'bigint',
  updated_at: 'bigint',
} as const;

/** SQLite columns the copy leaves out on purpose. */
export const SQLITE_ONLY_COLUMNS = { jobs: ['indexed'], job_history: [] as string[] };

export type Columns = Readonly<Record<string, string>>;

/** `a, b, c` */
export const columnList = (columns: Columns): string => Object.keys(columns).join(', ');

/**
 * `INSERT INTO table (…) OVERRIDING SYSTEM VALUE SELECT … FROM unnest($1::type[], …)`, in input order:
 * each column bound as one array. OVERRIDING SYSTEM VALUE lets the identity column take the source's ids.
 * `computed` gives some columns an expression over the unnested row `u` instead of its value.
 */
export function unnestInsert(table: string, columns: Columns, computed: Readonly<Record<string, string>> = {}): string {
  const names = columnList(columns);
  const arrays = Object.values(columns)
    .map((type, i) => `$${i + 1}::${type}[]`)
    .join(', ');
  const values = Object.keys(columns)
    .map((c) => computed[c] ?? c)
    .join(', ');
  return `INSERT INTO ${table} (${names}) OVERRIDING SYSTEM VALUE
    SELECT ${values} FROM unnest(${arrays}) WITH ORDINALITY AS u (${names}, ord)
    ORDER BY ord`;
}

/** Rows as one array per column, in the columns' order. */
export function asArrays<R>(rows: readonly R[], columns: Columns): unknown[][] {
  return Object.keys(columns).map((c) => rows.map((r) => (r as Record<string, unknown>)[c] ?? null));
}
