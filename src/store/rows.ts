/**
 * One row shape for both stores, and its mapping to the records of the store
 * contract, for the tables beside `jobs` (job-columns.ts lists the columns
 * of `jobs` and maps its rows). The SQLite file and the PostgreSQL schema have the same
 * tables and columns (snake_case; errors as JSON text), so a row read by
 * either store maps the same way; PostgreSQL's bigint columns arrive as
 * numbers (its pool's type parser) or, for a few aggregates, as strings,
 * which `Number()` takes care of.
 */
import type { HistoryEntry, JobOutcome, LogRecord, ScheduleRecord, StepRecord } from './store.js';
import { storedErrorInfo } from '../lib/stored-json.js';

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
  if (r.error !== null) entry.error = storedErrorInfo(r.error);
  return entry;
}

/** A row of `schedules`. */
export interface ScheduleRow {
  /** Absent in rows read before migration 018 (SQLite) / 016 (PostgreSQL), e.g. by the migrate tool's source: the name. */
  id?: string;
  name: string;
  cron: string | null;
  every_ms?: number | string | null;
  tz: string | null;
  payload: string;
  missed: string;
  start_at?: number | string | null;
  end_at?: number | string | null;
  run_limit?: number | null;
  immediately?: number | boolean;
  fired?: number;
  last_slot: number | null;
  created_at: number;
  updated_at: number;
  /** Absent in rows read before migration 015 (SQLite) / 013 (PostgreSQL). */
  version?: number | string;
  floor_slot?: number | string | null;
}

const orNull = (v: number | string | null | undefined): number | null => (v == null ? null : Number(v));

export function toScheduleRecord(r: ScheduleRow): ScheduleRecord {
  return {
    id: r.id ?? r.name,
    name: r.name,
    cron: r.cron,
    every: orNull(r.every_ms),
    tz: r.tz,
    payload: r.payload,
    missed: r.missed,
    startAt: orNull(r.start_at),
    endAt: orNull(r.end_at),
    limit: orNull(r.run_limit),
    immediately: r.immediately === true || r.immediately === 1,
    fired: Number(r.fired ?? 0),
    lastSlot: orNull(r.last_slot),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    version: Number(r.version ?? 0),
    floorSlot: orNull(r.floor_slot),
  };
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

/** A row of `job_outcomes`. */
export interface OutcomeRow {
  id: number;
  name: string;
  state: string;
  result: string | null;
  last_error: string | null;
  created_at: number;
  finished_at: number;
}

export function toJobOutcome(r: OutcomeRow): JobOutcome {
  return {
    id: Number(r.id),
    name: r.name,
    state: r.state,
    result: r.result,
    lastError: r.last_error === null ? null : storedErrorInfo(r.last_error),
    createdAt: Number(r.created_at),
    finishedAt: Number(r.finished_at),
  };
}
