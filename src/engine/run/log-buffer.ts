/**
 * A run's `ctx.log` lines on their way to the store. A run keeps its lines
 * in memory and they are written together: at the run's lease renewals (so
 * a long handler's lines show while it runs) and before its outcome (so a
 * job seen finished has its lines stored). A crash loses at most the lines
 * of a run not written yet. A handler that never logs has no buffer and
 * costs no statement.
 *
 * What a job keeps is bounded: its newest JOB_LOG_LINES lines, each message
 * and each line's fields cut to LOG_TEXT_BYTES. A run that logs more than
 * that between two writes drops its oldest lines itself, and the store
 * counts them as dropped.
 */
import type { Logger } from '../../lib/logger.js';
import { createBatcher } from '../../lib/batcher.js';
import { plainError } from '../../lib/pino-args.js';
import type { LogAppend, LogLineInput, Store } from '../../store/store.js';

/** The newest lines kept per job. */
export const JOB_LOG_LINES = 1000;
/** A message, and a line's fields (their JSON), are cut to this many bytes of UTF-8. */
export const LOG_TEXT_BYTES = 8 * 1024;

/** `text` cut to `max` bytes of UTF-8 (an ellipsis marks the cut), never in the middle of a character. */
export function cutText(text: string, max: number): string {
  // A UTF-16 unit is at most 3 bytes of UTF-8: most messages are known short without encoding them.
  if (text.length * 3 <= max || Buffer.byteLength(text) <= max) return text;
  const head = Buffer.from(text).subarray(0, max - 3).toString('utf8');
  return `${head.endsWith('\uFFFD') ? head.slice(0, -1) : head}…`;
}

/** A line's fields as stored: JSON text of what pino would show (errors as its serializer does), bounded. */
export function fieldsText(fields: Record<string, unknown> | undefined): string | null {
  if (fields === undefined || Object.keys(fields).length === 0) return null;
  let text: string;
  try {
    // An error met twice (an error that is its own cause) is written once: plainError makes a new object each time, which JSON's own cycle check cannot see.
    const errors = new WeakSet<Error>();
    text = JSON.stringify(fields, (_key, value: unknown) => {
      if (value instanceof Error) {
        if (errors.has(value)) return '[Circular]';
        errors.add(value);
        return plainError(value);
      }
      return typeof value === 'bigint' ? value.toString() : value;
    });
  } catch (err) {
    return JSON.stringify({ logError: `the log object is not JSON-serialisable: ${err instanceof Error ? err.message : String(err)}` });
  }
  if (Buffer.byteLength(text) <= LOG_TEXT_BYTES) return text;
  // Too large to keep whole: a readable start of it, as a string (its own JSON escapes may lengthen it a little).
  return JSON.stringify({ truncated: cutText(text, LOG_TEXT_BYTES / 2), bytes: Buffer.byteLength(text) });
}

export class LogBuffer {
  private lines: LogLineInput[] = [];
  private skipped = 0;
  /** The write under way: the next one waits for it, so a run's lines reach the store in order. */
  writing: Promise<void> | undefined;

  constructor(
    readonly jobId: number,
    readonly attempt: number,
    private readonly now: () => number,
  ) {}

  get size(): number {
    return this.lines.length;
  }

  /** A line as pino-style calls give it: the merged object and the message (pino-args.ts). */
  add(level: string, fields: Record<string, unknown> | undefined, message: string | undefined): void {
    let own = fields;
    // `log.info({ msg: 'x' })`: pino takes the object's own `msg` for the message.
    if (message === undefined && typeof fields?.msg === 'string') {
      const { msg, ...rest } = fields;
      message = msg as string;
      own = rest;
    }
    // NUL cannot be stored in PostgreSQL text (nor migrated there from SQLite): shown as U+FFFD instead.
    const text = cutText(message ?? '', LOG_TEXT_BYTES).replaceAll('\u0000', '\uFFFD');
    this.lines.push({ at: this.now(), level, message: text, fields: fieldsText(own) });
    // Trimmed now and then, not on every line: a handler logging in a loop pays a splice per JOB_LOG_LINES lines.
    if (this.lines.length >= 2 * JOB_LOG_LINES) this.drop(this.lines.length - JOB_LOG_LINES);
  }

  /** The lines logged since the last call, for the store; undefined when there are none. */
  take(): LogAppend | undefined {
    if (this.lines.length > JOB_LOG_LINES) this.drop(this.lines.length - JOB_LOG_LINES);
    if (this.lines.length === 0) return undefined;
    const append: LogAppend = { id: this.jobId, attempt: this.attempt, skipped: this.skipped, lines: this.lines };
    this.lines = [];
    this.skipped = 0;
    return append;
  }

  private drop(n: number): void {
    this.lines.splice(0, n);
    this.skipped += n;
  }
}

export interface LogWriter {
  /** Writes the buffer's lines (none: resolves at once); never rejects: a failed write is logged and its lines are lost. */
  flush(buffer: LogBuffer | undefined): Promise<void>;
}

export function createLogWriter(store: Pick<Store, 'appendLogs'>, logger: Logger): LogWriter {
  // The lines of every run that writes at the same time share one transaction.
  const appends = createBatcher<LogAppend, undefined>(async (items) => {
    await store.appendLogs(items, JOB_LOG_LINES);
    return items.map(() => undefined);
  });
  const write = async (buffer: LogBuffer) => {
    const append = buffer.take();
    if (!append) return;
    try {
      await appends.push(append);
    } catch (err) {
      logger.warn({ err, jobId: append.id }, `could not store ${append.lines.length} log lines of a job; they are lost`);
    }
  };
  return {
    flush(buffer) {
      if (!buffer) return Promise.resolve();
      const next = buffer.writing ? buffer.writing.then(() => write(buffer)) : write(buffer);
      buffer.writing = next;
      return next;
    },
  };
}
