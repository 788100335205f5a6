/**
 * Job logs in the store contract (store.ts): the lines handlers log with
 * `ctx.log`, kept with their job. A job's lines are numbered 1, 2, … in the
 * order they were logged; only its newest lines are kept, so the lines
 * before the first one kept are the ones dropped.
 */

/** A line a handler logged, as stored. */
export interface LogRecord {
  /** 1 for the job's first line, 2 for the next, …: the cursor of `jobLogs`. */
  seq: number;
  /** When it was logged, ms since the epoch. */
  at: number;
  /** The attempt that logged it. */
  attempt: number;
  /** pino's level name: trace, debug, info, warn, error, fatal. */
  level: string;
  message: string;
  /** JSON text of the line's own fields (an object); null: none. */
  fields: string | null;
}

/** A line to append: numbered by the store. */
export type LogLineInput = Omit<LogRecord, 'seq' | 'attempt'>;

/**
 * One run's lines to append to its job, numbered after the job's stored
 * ones. `skipped` numbers are left out in front of them: lines the run
 * dropped itself (it logged more than a job keeps before they were written),
 * so that they count as dropped.
 */
export interface LogAppend {
  id: number;
  attempt: number;
  skipped: number;
  lines: LogLineInput[];
}

/** One page of a job's lines, oldest first. */
export interface LogPage {
  lines: LogRecord[];
  /** How many of the job's first lines are gone: dropped to keep only its newest. */
  dropped: number;
}

/** Lines of `jobLogs`: those numbered after `after`, at most `limit`. */
export interface LogRange {
  after: number;
  limit: number;
}
