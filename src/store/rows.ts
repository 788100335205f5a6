/**
 * One row shape for both stores, and its mapping to the records of the store
 * contract. The SQLite file and the PostgreSQL schema have the same tables
 * and columns (snake_case; payload, result, context, retry policy and errors
 * as JSON text), so a row read by either store maps the same way; PostgreSQL's
 * bigint columns arrive as numbers (its pool's type parser) or, for a few
 * aggregates, as strings, which `Number()` takes care of.
 */
import type { ErrorInfo } from '../../machines/policy.js';
import type { FlowState, HistoryEntry, JobRecord, LeasedJob, LogRecord, ScheduleRecord, StepRecord } from './store.js';

export function parseJson<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

/** A row of `jobs`, as `SELECT *` returns it. */
export interface JobRow {
  id: number;
  name: string;
  state: string;
  payload: string;
  key: string | null;
  priority: number;
  run_at: number;
  attempts: number;
  last_error: string | null;
  ctx: string | null;
  retry: string | null;
  timeout_ms: number | null;
  result: string | null;
  progress: number | null;
  lease_owner: string | null;
  lease_token: string | null;
  locked_until: number | null;
  created_at: number;
  updated_at: number;
  /** +1 on every claim and transition: what each compare-and-set compares (migration 010). */
  version: number;
  /** Read by `litejobs migrate` only (engine/core/unique.ts). */
  unique_kind?: string | null;
  unique_key?: string | null;
  unique_span?: number | null;
  unique_until?: number | null;
  group_key?: string | null;
  parent_id?: number | null;
  children_left?: number | null;
  children_failed?: number | null;
  on_child_failure?: string | null;
  /** The enqueue's trace context (migration 013; PostgreSQL 009). */
  trace_context?: string | null;
}

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
    lastError: parseJson<ErrorInfo>(r.last_error),
    result: r.result,
    progress: r.progress,
    retry: parseJson(r.retry),
    timeout: r.timeout_ms,
    ctx: parseJson(r.ctx),
    leaseOwner: r.lease_owner,
    leaseToken: r.lease_token,
    lockedUntil: r.locked_until,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
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

/** The columns a claim reads (claim-ready.sql, the PostgreSQL claim_ready function): those a pending job can hold. */
export type ReadyRow = Pick<JobRow, 'id' | 'name' | 'payload' | 'key' | 'priority' | 'run_at' | 'attempts' | 'last_error' | 'ctx' | 'retry' | 'timeout_ms' | 'created_at' | 'unique_span' | 'group_key' | 'parent_id' | 'version' | 'trace_context'>;

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
    lastError: parseJson<ErrorInfo>(r.last_error),
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

export interface HistoryRow {
  from_state: string | null;
  to_state: string;
  event: string;
  candidate: number | null;
  at: number;
  worker_id: string | null;
  lease_token: string | null;
  error: string | null;
}

export function toHistoryEntry(r: HistoryRow): HistoryEntry {
  const entry: HistoryEntry = { from: r.from_state, to: r.to_state, event: r.event, at: r.at };
  if (r.candidate !== null) entry.candidate = r.candidate;
  if (r.worker_id !== null) entry.workerId = r.worker_id;
  if (r.lease_token !== null) entry.leaseToken = r.lease_token;
  if (r.error !== null) entry.error = JSON.parse(r.error) as ErrorInfo;
  return entry;
}

/** A row of `schedules`. */
export interface ScheduleRow {
  name: string;
  cron: string;
  tz: string | null;
  payload: string;
  missed: string;
  last_slot: number | null;
  created_at: number;
  updated_at: number;
  /** Absent in rows read before migration 015 (SQLite) / 013 (PostgreSQL), e.g. by the migrate tool's source. */
  version?: number | string;
  floor_slot?: number | string | null;
}

export function toScheduleRecord(r: ScheduleRow): ScheduleRecord {
  return { name: r.name, cron: r.cron, tz: r.tz, payload: r.payload, missed: r.missed, lastSlot: r.last_slot, createdAt: r.created_at, updatedAt: r.updated_at, version: Number(r.version ?? 0), floorSlot: r.floor_slot == null ? null : Number(r.floor_slot) };
}

/** A row of `job_steps`, as a job's steps are read (`job_id` when several jobs' steps are: `litejobs migrate`). */
export interface StepRow {
  job_id?: number;
  name: string;
  seq: number;
  result: string | null;
  wake_at: number | null;
  attempt: number;
  at: number;
}

export function toStepRecord(r: StepRow): StepRecord {
  return { name: r.name, seq: r.seq, result: r.result, wakeAt: r.wake_at, attempt: r.attempt, at: r.at };
}

/** A row of `job_logs`, as a job's lines are read (`job_id` when several jobs' lines are: `litejobs migrate`). */
export interface LogRow {
  job_id?: number;
  seq: number;
  at: number;
  attempt: number;
  level: string;
  message: string;
  fields: string | null;
}

export function toLogRecord(r: LogRow): LogRecord {
  return { seq: Number(r.seq), at: Number(r.at), attempt: r.attempt, level: r.level, message: r.message, fields: r.fields };
}
