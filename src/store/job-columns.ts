/**
 * The columns of `jobs`, listed once for both stores, with how a row becomes
 * a record and how a new job's values go into a row. The SQLite file and the
 * PostgreSQL schema have the same columns (the types below are PostgreSQL's;
 * the SQLite file holds the same values), and a statement that names a set
 * of them includes the set instead of spelling it (job-column-sql.ts:
 * `{{enqueued.columns}}`, `{{ready.columns}}` …). A column a job gains is
 * written here, in each store's migration, and in the records' types
 * (contract/job.ts): no statement of either store changes.
 *
 * The functions below the list are written out field by field rather than
 * looped over it: a loop reads and writes properties by computed name, many
 * times slower on the hot paths (the benchmarks page, "Sizes chosen by
 * measurement", has the figures). test/unit/job-columns.test.ts checks each
 * of them against the list.
 */
import type { FlowState, JobRecord, LeasedJob, NewJob } from './store.js';
import { storedErrorInfo, storedJson } from '../lib/stored-json.js';

export interface JobColumn {
  /** Its PostgreSQL type (bound arrays and casts are of it; `litejobs migrate` copies with it). */
  type: 'bigint' | 'int' | 'float8' | 'text';
  /** May be NULL. */
  null?: true;
  /** The record field it becomes (JobRecord). None: read together with others (heldKey, flow), or by `litejobs migrate` only. */
  field?: keyof JobRecord;
  /** Left out of records read whole (get, list …): only a claim's record carries it. */
  claimOnly?: true;
  /** Written by an enqueue, from this field of NewJob as it is: the set `{{enqueued.…}}`. */
  enqueued?: keyof NewJob & string;
  /**
   * Read by a claim, a leased job's record being made of these: the set
   * `{{ready.…}}`. PostgreSQL's fast claim reads through the schema's
   * claim_ready function, whose result columns its migration spells out: a
   * column added to the set makes the function again in its own migration
   * (test/postgres/claim.ready-columns.test.ts says when it is missing).
   */
  ready?: true;
}

export const JOB_COLUMNS = {
  id: { type: 'bigint', field: 'id', ready: true },
  name: { type: 'text', field: 'name', enqueued: 'name', ready: true },
  state: { type: 'text', field: 'state', enqueued: 'state' },
  payload: { type: 'text', field: 'payload', enqueued: 'payload', ready: true },
  key: { type: 'text', null: true, field: 'key', ready: true },
  priority: { type: 'int', field: 'priority', enqueued: 'priority', ready: true },
  run_at: { type: 'bigint', field: 'runAt', enqueued: 'runAt', ready: true },
  attempts: { type: 'int', field: 'attempts', ready: true },
  last_error: { type: 'text', null: true, field: 'lastError', ready: true },
  ctx: { type: 'text', null: true, field: 'ctx', ready: true },
  retry: { type: 'text', null: true, field: 'retry', enqueued: 'retry', ready: true },
  timeout_ms: { type: 'bigint', null: true, field: 'timeout', enqueued: 'timeout', ready: true },
  result: { type: 'text', null: true, field: 'result' },
  // A number before migration 019 (SQLite; PostgreSQL 017): no longer written, copied by `litejobs migrate` as it is.
  progress: { type: 'float8', null: true },
  lease_owner: { type: 'text', null: true, field: 'leaseOwner' },
  lease_token: { type: 'text', null: true, field: 'leaseToken' },
  locked_until: { type: 'bigint', null: true, field: 'lockedUntil' },
  created_at: { type: 'bigint', field: 'createdAt', ready: true },
  updated_at: { type: 'bigint', field: 'updatedAt' },
  // The key held (heldKey, with unique_key); the span and window end are read by the SQL.
  unique_kind: { type: 'text', null: true },
  unique_key: { type: 'text', null: true },
  unique_span: { type: 'int', null: true },
  unique_until: { type: 'bigint', null: true },
  group_key: { type: 'text', null: true, field: 'group', enqueued: 'group', ready: true },
  parent_id: { type: 'bigint', null: true, field: 'parentId', ready: true },
  // A flow parent's children (flow).
  children_left: { type: 'int', null: true },
  children_failed: { type: 'int', null: true },
  on_child_failure: { type: 'text', null: true },
  /** +1 on every claim and transition: what each compare-and-set compares (SQLite migration 010). */
  version: { type: 'int', field: 'version', ready: true },
  /** The enqueue's trace context (SQLite migration 013, PostgreSQL 010). */
  trace_context: { type: 'text', null: true, field: 'traceContext', claimOnly: true, enqueued: 'traceContext', ready: true },
  /** The latest `ctx.progress()`, JSON text (SQLite migration 019, PostgreSQL 017). */
  progress_json: { type: 'text', null: true, field: 'progress' },
} as const satisfies Record<string, JobColumn>;

type Columns = typeof JOB_COLUMNS;
export type JobColumnName = keyof Columns;
type ValueOf<C extends JobColumn> = (C['type'] extends 'text' ? string : number) | (C extends { null: true } ? null : never);

/** A row of `jobs`, as `SELECT *` returns it. */
export type JobRow = { -readonly [K in JobColumnName]: ValueOf<Columns[K]> };

/** The set of columns whose description has `flag`, in the list's order. */
const named = (flag: 'ready' | 'enqueued') => (Object.keys(JOB_COLUMNS) as JobColumnName[]).filter((c) => (JOB_COLUMNS[c] as JobColumn)[flag] !== undefined);

type ReadyColumn = { [K in JobColumnName]: Columns[K] extends { ready: true } ? K : never }[JobColumnName];
/** What a claim reads of a pending job (`{{ready.columns}}`): the columns it can hold; the rest are NULL before a claim, or written by it. */
export const READY_COLUMNS = named('ready') as readonly ReadyColumn[];
/** A claim's row: the ready columns, and on SQLite the key's span (its claim gives back keys shorter than 'active'). */
export type ReadyRow = Pick<JobRow, ReadyColumn> & { unique_span?: number | null };

type EnqueuedColumn = { [K in JobColumnName]: Columns[K] extends { enqueued: string } ? K : never }[JobColumnName];
type EnqueuedField = { [K in EnqueuedColumn]: Columns[K]['enqueued'] }[EnqueuedColumn];
/** The columns an enqueue writes from a new job's values as they are (`{{enqueued.columns}}`); keys, unique guards and the times are each statement's own. */
export const ENQUEUED_COLUMNS = named('enqueued') as readonly EnqueuedColumn[];
/** NewJob's fields those columns take, in the same order: the SQLite statements' parameter names (`{{enqueued.params}}`). */
export const ENQUEUED_FIELDS = ENQUEUED_COLUMNS.map((c) => JOB_COLUMNS[c].enqueued) as readonly EnqueuedField[];
/** A new job's enqueued values, named as its fields, absent ones null. */
export type EnqueuedRow = { [F in EnqueuedField]-?: Exclude<NewJob[F], undefined> };

/** A stored JSON object (a retry policy, a machine's context); text that is not one reads as none. */
export function parseJson<T>(text: string | null): T | null {
  const value = text === null ? null : storedJson(text);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as T) : null;
}

/** A job read whole (get, list, due, expired, a flow's children). */
export function toJobRecord(r: JobRow): JobRecord {
  return {
    id: r.id,
    name: r.name,
    state: r.state,
    payload: r.payload,
    key: r.key,
    priority: r.priority,
    runAt: r.run_at,
    attempts: r.attempts,
    lastError: r.last_error === null ? null : storedErrorInfo(r.last_error),
    result: r.result,
    progress: r.progress_json,
    retry: parseJson(r.retry),
    timeout: r.timeout_ms,
    ctx: parseJson(r.ctx),
    leaseOwner: r.lease_owner,
    leaseToken: r.lease_token,
    lockedUntil: r.locked_until,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    // PostgreSQL: a caller's own client (transactional enqueue) reads it as text.
    version: Number(r.version),
    heldKey: r.unique_key ? { kind: r.unique_kind as 'unique' | 'debounce' | 'throttle', key: r.unique_key } : null,
    group: r.group_key ?? null,
    parentId: r.parent_id ?? null,
    flow: flowOf(r),
  };
}

/** A parent's flow columns, or null for a job that is no parent. */
export function flowOf(r: Pick<JobRow, 'children_left' | 'children_failed' | 'on_child_failure'>): FlowState | null {
  if (r.children_left === null || r.children_left === undefined) return null;
  return { left: Number(r.children_left), failed: Number(r.children_failed ?? 0), onChildFailure: r.on_child_failure === 'continue' ? 'continue' : 'fail' };
}

/** A claimed job's record: the ready row, plus what the claim writes (its lease, one more attempt, one more version). */
export function toLeasedRecord(r: ReadyRow, claim: { state: string; attempts: number; owner: string; token: string; lockedUntil: number; now: number }): LeasedJob {
  return {
    id: r.id,
    name: r.name,
    state: claim.state,
    payload: r.payload,
    key: r.key,
    priority: r.priority,
    runAt: r.run_at,
    attempts: r.attempts + claim.attempts,
    lastError: r.last_error === null ? null : storedErrorInfo(r.last_error),
    result: null,
    progress: null,
    retry: parseJson(r.retry),
    timeout: r.timeout_ms,
    ctx: parseJson(r.ctx),
    leaseOwner: claim.owner,
    leaseToken: claim.token,
    lockedUntil: claim.lockedUntil,
    createdAt: r.created_at,
    updatedAt: claim.now,
    // The claim moved it on by one.
    version: Number(r.version) + 1,
    group: r.group_key ?? null,
    parentId: r.parent_id ?? null,
    traceContext: r.trace_context ?? null,
  };
}

/**
 * Copies a new job's enqueued values into `row`, named as its fields (the
 * SQLite statements bind `{{enqueued.params}}` from them), and answers the
 * row: one row object can be refilled for every job of a batch.
 */
export function copyEnqueued<R extends object>(job: NewJob, row: R): R & EnqueuedRow {
  const to = row as R & EnqueuedRow;
  to.name = job.name;
  to.state = job.state;
  to.payload = job.payload;
  to.priority = job.priority;
  to.runAt = job.runAt;
  to.retry = job.retry;
  to.timeout = job.timeout;
  to.group = job.group ?? null;
  to.traceContext = job.traceContext ?? null;
  return to;
}

/** Writes a new job's enqueued values into `values` from index `at` on, in the list's order; answers the index after them. */
export function writeEnqueued(job: NewJob, values: unknown[], at: number): number {
  values[at] = job.name;
  values[at + 1] = job.state;
  values[at + 2] = job.payload;
  values[at + 3] = job.priority;
  values[at + 4] = job.runAt;
  values[at + 5] = job.retry;
  values[at + 6] = job.timeout;
  values[at + 7] = job.group ?? null;
  values[at + 8] = job.traceContext ?? null;
  return at + 9;
}
