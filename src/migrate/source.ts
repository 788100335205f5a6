/**
 * The SQLite file `litejobs migrate` copies from, opened read-only: the
 * producers and workers still using it are not disturbed (WAL readers take
 * no lock writers wait on), and nothing here can change it. Each batch is
 * read in one read transaction, so a batch's jobs, their history, steps and log lines are one
 * snapshot of the file.
 */
import { realpathSync } from 'node:fs';
import Database from 'better-sqlite3';
import { JobState } from '../../machines/job.machine.js';
import { DatabaseError } from '../errors.js';
import { migrations } from '../store/sqlite/sql.js';
import type { HistoryRow as StoredHistoryRow, LogRow, StepRow as StoredStepRow } from '../store/rows.js';
import type { JobRow } from '../store/job-columns.js';
import type { LimitRow } from '../store/limit-rows.js';
import type { ScheduleRow } from '../store/rows.js';
import { columnList, HISTORY_COLUMNS, JOB_COLUMNS, LIMIT_COLUMNS, LOG_COLUMNS, MESSAGE_COLUMNS, STEP_COLUMNS, VALUE_COLUMNS } from './columns.js';

/** A row of `job_history`, as the copy reads it: with its own id and its job's. */
export interface HistoryRow extends StoredHistoryRow {
  id: number;
  job_id: number;
}

export interface SourceBatch {
  jobs: JobRow[];
  /** The history of those jobs, in id order (history tombstones, job 0, are never among them). */
  history: HistoryRow[];
  /** The completed steps of those jobs (ctx.step, ctx.sleep). */
  steps: StepRow[];
  /** The log lines of those jobs (ctx.log), by job then seq. */
  logs: LogLineRow[];
  /** Their mailboxes (queue.signal), by job then in the order sent. */
  messages: MessageRow[];
  /** The values they published (ctx.publish). */
  values: ValueRow[];
}

/** A row of `job_messages`, without its number. */
export interface MessageRow {
  job_id: number;
  topic: string;
  data: string;
  key: string | null;
  sent_at: number;
  taken_by: string | null;
}

/** A row of `job_values`. */
export interface ValueRow {
  job_id: number;
  key: string;
  value: string;
  at: number;
}

/** A row of `job_steps`, with its job's id. */
export type StepRow = StoredStepRow & { job_id: number };

/** A row of `job_logs`, with its job's id. */
export type LogLineRow = LogRow & { job_id: number };

export interface Source {
  /** The file's real path: the key under which the target records this file's progress. */
  readonly identity: string;
  /** Up to `limit` jobs with ids above `after` (fewer when their text is large), in id order, with their history. */
  batch(after: number, limit: number): SourceBatch;
  /** Jobs with ids above `after` (what is left to copy). */
  countAfter(after: number): number;
  /** Jobs in (after, upTo] by state. */
  countByState(after: number, upTo: number): Map<string, number>;
  /** The states of these jobs (those skipped for a key already taken in the target). */
  statesOf(ids: readonly number[]): string[];
  /** Processing jobs above `after` whose lease runs until `now` or later: workers hold them. */
  liveLeases(after: number, now: number): { count: number; ids: number[] };
  /** Paused names (the empty name pauses the whole queue), with when they were paused. */
  paused(): Array<{ name: string; paused_at: number }>;
  /** The limits table's rows (rate-limit buckets, pauses, group concurrency). */
  limits(): LimitRow[];
  /** Job names' rules kept in the file: their limits changed while the queue ran, and their own retention. */
  nameRules(): NameRules;
  /** Schedules, with the last slot each fired and how many it fired. */
  schedules(): ScheduleRow[];
  /** The highest job id, and the highest history id ever handed out (history tombstones keep it). */
  maxIds(): { job: number; history: number };
  close(): void;
}

/**
 * A batch ends early past this much job text (payloads, results, errors):
 * payloads may be up to 1 MiB each, and a batch is held in memory and sent
 * in one statement.
 */
const BATCH_BYTES = 32 * 1024 * 1024;

const textBytes = (j: JobRow) => j.payload.length + (j.result?.length ?? 0) + (j.last_error?.length ?? 0) + (j.ctx?.length ?? 0);

/** A job name's rule kept in a table of its own (name_limits, name_retention): JSON. */
export interface NameRule {
  name: string;
  rule: string;
  updated_at: number;
}

export interface NameRules {
  limits: NameRule[];
  retention: NameRule[];
}

export function openSource(path: string): Source {
  let db: Database.Database;
  let identity: string;
  try {
    identity = realpathSync(path);
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new DatabaseError('LJ_ERR_DATABASE_OPEN', `cannot open database ${path}: ${(err as Error).message}`, { cause: err });
  }
  try {
    checkLevel(db, path);
  } catch (err) {
    db.close();
    throw err instanceof DatabaseError ? err : new DatabaseError('LJ_ERR_DATABASE_OPEN', `cannot open database ${path}: ${(err as Error).message}`, { cause: err });
  }
  const processing = `'${JobState.processing}'`;
  const s = {
    jobs: db.prepare(`SELECT ${columnList(JOB_COLUMNS)} FROM jobs WHERE id > ? ORDER BY id LIMIT ?`),
    history: db.prepare(
      // Only the history of jobs copied: a job deleted as it finished leaves its history beside its kept outcome for a while, copied by neither.
      `SELECT ${columnList(HISTORY_COLUMNS)} FROM job_history h WHERE job_id > ? AND job_id <= ? AND EXISTS (SELECT 1 FROM jobs j WHERE j.id = h.job_id) ORDER BY id`,
    ),
    steps: db.prepare(`SELECT ${columnList(STEP_COLUMNS)} FROM job_steps WHERE job_id > ? AND job_id <= ? ORDER BY job_id, seq`),
    logs: db.prepare(`SELECT ${columnList(LOG_COLUMNS)} FROM job_logs WHERE job_id > ? AND job_id <= ? ORDER BY job_id, seq`),
    messages: db.prepare(`SELECT ${columnList(MESSAGE_COLUMNS)} FROM job_messages WHERE job_id > ? AND job_id <= ? ORDER BY job_id, seq`),
    values: db.prepare(`SELECT ${columnList(VALUE_COLUMNS)} FROM job_values WHERE job_id > ? AND job_id <= ? ORDER BY job_id, key`),
    countAfter: db.prepare('SELECT count(*) FROM jobs WHERE id > ?').pluck(),
    byState: db.prepare('SELECT state, count(*) AS n FROM jobs WHERE id > ? AND id <= ? GROUP BY state'),
    stateOf: db.prepare('SELECT state FROM jobs WHERE id = ?').pluck(),
    live: db.prepare(`SELECT id FROM jobs WHERE state = ${processing} AND locked_until >= ? AND id > ? ORDER BY id`).pluck(),
    paused: db.prepare('SELECT name, paused_at FROM paused_names ORDER BY name'),
    limits: db.prepare(`SELECT ${columnList(LIMIT_COLUMNS)} FROM job_limits ORDER BY kind, key`),
    nameLimits: db.prepare('SELECT name, rule, updated_at FROM name_limits ORDER BY name'),
    nameRetention: db.prepare('SELECT name, rule, updated_at FROM name_retention ORDER BY name'),
    schedules: db.prepare('SELECT id, name, cron, every_ms, tz, payload, missed, start_at, end_at, run_limit, immediately, fired, last_slot, created_at, updated_at FROM schedules ORDER BY id'),
    maxJob: db.prepare('SELECT coalesce(max(id), 0) FROM jobs').pluck(),
    maxHistory: db.prepare('SELECT coalesce(max(id), 0) FROM job_history').pluck(),
  };
  const readBatch = db.transaction((after: number, limit: number): SourceBatch => {
    const jobs: JobRow[] = [];
    let bytes = 0;
    for (const job of s.jobs.iterate(after, limit) as IterableIterator<JobRow>) {
      jobs.push(job);
      bytes += textBytes(job);
      if (bytes >= BATCH_BYTES) break;
    }
    if (jobs.length === 0) return { jobs, history: [], steps: [], logs: [], messages: [], values: [] };
    const last = jobs.at(-1)!.id;
    return {
      jobs,
      history: s.history.all(after, last) as HistoryRow[],
      steps: s.steps.all(after, last) as StepRow[],
      logs: s.logs.all(after, last) as LogLineRow[],
      messages: s.messages.all(after, last) as MessageRow[],
      values: s.values.all(after, last) as ValueRow[],
    };
  });
  return {
    identity,
    batch: (after, limit) => readBatch(after, limit),
    countAfter: (after) => s.countAfter.get(after) as number,
    countByState(after, upTo) {
      const rows = s.byState.all(after, upTo) as Array<{ state: string; n: number }>;
      return new Map(rows.map((r) => [r.state, r.n]));
    },
    statesOf: (ids) => ids.map((id) => s.stateOf.get(id) as string | undefined).filter((state) => state !== undefined),
    liveLeases(after, now) {
      const ids = s.live.all(now, after) as number[];
      return { count: ids.length, ids: ids.slice(0, 10) };
    },
    paused: () => s.paused.all() as Array<{ name: string; paused_at: number }>,
    limits: () => s.limits.all() as LimitRow[],
    nameRules: () => ({ limits: s.nameLimits.all() as NameRule[], retention: s.nameRetention.all() as NameRule[] }),
    schedules: () => s.schedules.all() as ScheduleRow[],
    maxIds: db.transaction(() => ({ job: s.maxJob.get() as number, history: s.maxHistory.get() as number })),
    close: () => db.close(),
  };
}

/**
 * The file must be at the migration level this litejobs writes: a read-only
 * connection cannot migrate it, and an older or newer layout would be copied
 * wrongly.
 */
function checkLevel(db: Database.Database, path: string): void {
  const level = db.pragma('user_version', { simple: true }) as number;
  const known = migrations().at(-1)?.level ?? 0;
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  const refuse = (why: string) => {
    throw new DatabaseError('LJ_ERR_DATABASE_OPEN', `cannot migrate from ${path}: ${why}`);
  };
  if (!tables.includes('jobs') || !tables.includes('job_history')) refuse('it is not a litejobs database (it has no jobs table)');
  if (level > known) refuse(`it was made by a newer litejobs (schema level ${level}; this version knows up to ${known})`);
  if (level < known) {
    refuse(`it is at schema level ${level}, this litejobs writes level ${known}: open it once with this version (litejobs --db ${path} stats) to upgrade it, then migrate`);
  }
}
