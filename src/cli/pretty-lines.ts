/**
 * A readable pino destination for the demo: each JSON line becomes
 * `HH:MM:SS LEVEL msg key=value …`. The demo ships in the package and runs
 * where only production dependencies are installed, so it cannot lean on a
 * dev-only pretty printer; this needs nothing but pino's line format.
 */

import { printable } from './format.js';

const LEVELS: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const COLORS: Readonly<Record<string, string>> = { TRACE: '90', DEBUG: '36', INFO: '32', WARN: '33', ERROR: '31', FATAL: '35' };
/** Shown in the line's head (time, level, msg) or noise for a terminal reader (pid, hostname). */
const HIDDEN = new Set(['time', 'level', 'msg', 'pid', 'hostname']);

export interface PrettyLinesOptions {
  /** Colour the level with ANSI codes (default: when `out` is a terminal and NO_COLOR is unset). */
  color?: boolean;
}

/** One pino JSON line as `HH:MM:SS LEVEL msg key=value …`; a line that is not a JSON object comes back as it is. */
export function formatLine(line: string, options: PrettyLinesOptions = {}): string {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return printable(line);
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return printable(line);
  const r = record as Record<string, unknown>;
  // A string level comes from a logged object's own `level` key (pino writes it last): shown escaped like any field.
  const level = typeof r.level === 'number' ? (LEVELS[r.level] ?? String(r.level)) : printable(String(r.level ?? ''));
  const head = [
    typeof r.time === 'number' ? clock(new Date(r.time)) : '--:--:--',
    options.color && COLORS[level] ? `\x1b[${COLORS[level]}m${level.padEnd(5)}\x1b[0m` : level.padEnd(5),
  ];
  // A handler's message, a job's name or a receiver's reason phrase may hold terminal escapes: shown, never run.
  if (typeof r.msg === 'string' && r.msg !== '') head.push(printable(r.msg));
  const fields = Object.entries(r)
    .filter(([key]) => !HIDDEN.has(key))
    .map(([key, value]) => `${printable(key)}=${formatValue(value)}`);
  return [...head, ...fields].join(' ');
}

/** A pino destination (`pino(options, prettyLines())`) that writes formatted lines to `out`, synchronously. */
export function prettyLines(
  out: { write(text: string): unknown; isTTY?: boolean } = process.stdout,
  options: PrettyLinesOptions = {},
): { write(chunk: string): void } {
  const color = options.color ?? (out.isTTY === true && !process.env.NO_COLOR);
  return {
    write(chunk) {
      // pino writes one record per call, but a chunk may hold several lines.
      for (const line of chunk.split('\n')) if (line !== '') out.write(`${formatLine(line, { color })}\n`);
    },
  };
}

function clock(d: Date): string {
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

function formatValue(value: unknown): string {
  // A bare word when it is one; JSON's quotes and escapes otherwise (control characters among them).
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are what it finds
  if (typeof value === 'string') return /^[^\s"=\u0000-\u001f\u007f-\u009f]+$/.test(value) ? value : printable(JSON.stringify(value));
  // A serialised error: on one line, its message is what a reader needs (a stack would bury the rest).
  if (isErrorLike(value)) return printable(JSON.stringify(value.message));
  return printable(JSON.stringify(value) ?? String(value));
}

function isErrorLike(value: unknown): value is { message: string } {
  if (typeof value !== 'object' || value === null) return false;
  return typeof (value as { message?: unknown }).message === 'string' && ('stack' in value || 'name' in value || 'type' in value);
}
