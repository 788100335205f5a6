/** `queue.logs(id)`: the lines a job's handler logged with `ctx.log`, as stored with the job (log-buffer.ts). */
import type { LogRecord, Store } from '../../store/store.js';
import { JobNotFoundError } from '../../errors.js';
import { checkInteger, rejectUnknownOptions } from '../../lib/validate.js';
import { storedJson } from '../../lib/stored-json.js';

/** pino's levels: those a line can have. */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/** A line a handler logged with `ctx.log`. */
export interface LogLine {
  /** 1 for the job's first line, 2 for the next, …: pass the last one seen as `after` to read on. */
  seq: number;
  at: Date;
  /** The attempt that logged it. */
  attempt: number;
  level: LogLevel;
  message: string;
  /** The line's own fields: the object given to the call, and the bindings of a child made from `ctx.log`. */
  fields?: Record<string, unknown>;
}

/** One page of a job's log lines, oldest first. */
export interface JobLogs {
  lines: LogLine[];
  /** Lines logged earlier and dropped: a job keeps its newest 1,000. */
  dropped: number;
  /** Pass as `after` for the next page; null when this page is the last one for now. */
  next: number | null;
}

export interface LogsOptions {
  /** Only lines after this `seq`. Default 0: from the first line kept. */
  after?: number;
  /** Lines at most, 1 to 1,000. Default 1,000. */
  limit?: number;
}

const LOGS_KEYS = ['after', 'limit'] as const;
export const MAX_LOGS_PAGE = 1000;

export function toLogLine(r: LogRecord): LogLine {
  const line: LogLine = { seq: r.seq, at: new Date(r.at), attempt: r.attempt, level: r.level as LogLevel, message: r.message };
  if (r.fields !== null) line.fields = storedJson(r.fields) as Record<string, unknown>;
  return line;
}

/** Reads one page of the job's lines; JobNotFoundError when there is no such job. */
export async function readJobLogs(store: Pick<Store, 'get' | 'jobLogs'>, id: number, options: LogsOptions = {}): Promise<JobLogs> {
  rejectUnknownOptions('logs options', options, LOGS_KEYS);
  checkInteger('job id', id, 1);
  const after = options.after === undefined ? 0 : checkInteger('logs after', options.after, 0);
  const limit = options.limit === undefined ? MAX_LOGS_PAGE : checkInteger('logs limit', options.limit, 1, MAX_LOGS_PAGE);
  if (!(await store.get(id))) throw new JobNotFoundError(id);
  const page = await store.jobLogs(id, { after, limit });
  return { lines: page.lines.map(toLogLine), dropped: page.dropped, next: page.lines.length === limit ? page.lines[limit - 1]!.seq : null };
}
