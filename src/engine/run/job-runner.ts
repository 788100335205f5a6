/**
 * Runs one handler: parses the payload and turns whatever happens into an
 * outcome once the handler has settled.
 * Handler failures are data, never crashes.
 *
 * The outcome waits for the handler itself, even after an abort: a handler
 * that ignores its signal keeps running, and recording its attempt as over
 * while it runs would let the job start again beside it. The executor keeps
 * the run's slot and lease meanwhile and reports it as stuck after a while.
 */
import type { ErrorInfo } from '../../../machines/policy.js';
import type { Abortable } from '../../lib/abortable.js';
import { RateLimitedError, RetryLaterError, TimeoutError, UnrecoverableError } from '../../errors.js';
import type { Handler, HandlerContext } from '../core/job-definition.js';

export type AbortReason = 'shutdown' | 'cancel' | 'lease';

export type Outcome =
  | { kind: 'completed'; result: string | undefined }
  | { kind: 'failed'; error: ErrorInfo }
  /** Stopped by shutdown (release, no attempt spent), cancel or a lost lease (nothing to write). */
  | { kind: 'aborted'; reason: AbortReason }
  /** Never called: a rate-limited job past its start deadline when its thread got to it (release, no attempt spent). */
  | { kind: 'late' };

const MAX_STACK = 4000;
/** The longest pause a RateLimitedError takes: a longer one is a mistake (a Retry-After in the wrong unit), not a pause. */
export const MAX_RATE_LIMITED_MS = 366 * 24 * 3600 * 1000;
/** Bounds on the HTTP response kept from an error: it is stored on every history row. */
const MAX_BODY = 4096;
const MAX_HEADERS = 16;
const MAX_HEADER_VALUE = 1024;

/** Reads a property that may be a throwing getter. */
function read(target: object, key: string): unknown {
  try {
    return (target as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** Turns anything thrown into the JSON-safe ErrorInfo the machine reasons about. */
export function toErrorInfo(err: unknown): ErrorInfo {
  if (!(err instanceof Error)) return { name: 'NonError', message: wellFormed(safeString(err)) };
  const name = read(err, 'name');
  const message = read(err, 'message');
  const info: ErrorInfo = {
    name: typeof name === 'string' ? wellFormed(name) : 'Error',
    message: typeof message === 'string' ? wellFormed(message) : '(the error\'s message could not be read)',
  };
  const code = read(err, 'code');
  if (typeof code === 'string') info.code = wellFormed(code);
  const stack = read(err, 'stack');
  if (typeof stack === 'string') info.stack = wellFormed(stack.slice(0, MAX_STACK));
  // By class, or by code: the handler may hold the error classes of another copy of litejobs.
  const delay = read(err, 'delay');
  if (err instanceof RetryLaterError || (code === 'LJ_ERR_RETRY_LATER' && typeof delay === 'number')) info.retryAfter = delay as number;
  if (err instanceof UnrecoverableError || code === 'LJ_ERR_UNRECOVERABLE') info.unrecoverable = true;
  if (err instanceof RateLimitedError || (code === 'LJ_ERR_RATE_LIMITED' && typeof delay === 'number' && Number.isFinite(delay) && delay >= 0)) {
    // Whole milliseconds, rounded up, and at most a year: a pause's end and the job's due time are stored as integer times.
    info.rateLimited = { delay: Math.min(MAX_RATE_LIMITED_MS, Math.ceil(delay as number)), scope: read(err, 'scope') === 'name' ? 'name' : 'group' };
  }
  // Only litejobs' own errors: another library's `headers` may be the request's, credentials included.
  if (typeof code === 'string' && code.startsWith('LJ_ERR_')) keepResponse(err, info);
  return info;
}

/**
 * A stored error as pino's `err` serializer reads one: an Error of a class
 * named as the error (the log's `type`), with its message, stack and what
 * else was kept (code, status…). The stored plain object would be logged as
 * `"type":"Object"`.
 */
export function toLoggedError(info: ErrorInfo): Error {
  const Named = { [info.name]: class extends Error {} }[info.name]!;
  const err = new Named(info.message);
  const { name, message: _message, stack, ...rest } = info;
  err.name = name;
  err.stack = stack ?? `${name}: ${info.message}`;
  return Object.assign(err, rest);
}

/** Copies the HTTP response an error carries (`status`, `headers`, `body`), bounded in size. */
function keepResponse(err: Error, info: ErrorInfo): void {
  const status = read(err, 'status');
  if (typeof status === 'number' && Number.isInteger(status)) info.status = status;
  const headers = read(err, 'headers');
  if (typeof headers === 'object' && headers !== null && !Array.isArray(headers)) {
    const kept: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers).slice(0, MAX_HEADERS)) {
      if (typeof value === 'string') kept[wellFormed(name)] = wellFormed(value.slice(0, MAX_HEADER_VALUE));
    }
    info.headers = kept;
  }
  const body = read(err, 'body');
  if (typeof body === 'string') info.body = wellFormed(body.slice(0, MAX_BODY));
}

/** A NUL, or half of a surrogate pair (one cut in two by a bound, or a broken one in a receiver's answer). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: a NUL is what it finds
const NOT_STORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text an error keeps, each character PostgreSQL's JSON can hold: a NUL or a
 * lone surrogate becomes U+FFFD. A job's error is read as JSON by the page's
 * lists and searches; one such character made every list of its state fail.
 */
export function wellFormed(text: string): string {
  return text.replace(NOT_STORABLE, '\uFFFD');
}

function safeString(value: unknown): string {
  try {
    return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  } catch {
    return '(a thrown value that cannot be turned into text)';
  }
}

const failed = (err: unknown): Outcome => ({ kind: 'failed', error: toErrorInfo(err) });

/**
 * What a failed attempt keeps on the job of an error: a failure of the store
 * (a step or sleep the handler awaited could not be written, say) as its code
 * and one sentence. Its message names the file or the connection (user,
 * host, database, schema) and its stack the install's paths, and a job's
 * error is read by anyone who may read the job (the HTTP API, the page); the
 * worker logs it whole (record-outcome.ts).
 */
export function storedError(error: ErrorInfo): ErrorInfo {
  if (!error.code?.startsWith('LJ_ERR_DATABASE')) return error;
  return { name: 'DatabaseError', code: error.code, message: `the database failed this attempt (${error.code}); the worker's log has the detail` };
}

function completed(result: unknown): Outcome {
  try {
    return { kind: 'completed', result: serializeResult(result) };
  } catch (err) {
    return failed(err);
  }
}

/** What an aborted run's settled handler amounts to: the abort decides, but work done on shutdown is kept. */
export function afterAbort(reason: unknown, settled: Outcome): Outcome {
  if (reason instanceof TimeoutError) return { kind: 'failed', error: toErrorInfo(reason) };
  if (reason === 'shutdown' && settled.kind === 'completed') return settled;
  return { kind: 'aborted', reason: reason as AbortReason };
}

export async function runHandler(
  handler: Handler,
  payloadText: string,
  ctx: HandlerContext,
  abortable: Abortable,
): Promise<Outcome> {
  let settled: Outcome;
  try {
    const value = handler(JSON.parse(payloadText) as unknown, ctx);
    settled = typeof (value as PromiseLike<unknown> | null)?.then === 'function' ? await Promise.resolve(value).then(completed, failed) : completed(value);
  } catch (err) {
    settled = failed(err);
  }
  return abortable.aborted ? afterAbort(abortable.reason, settled) : settled;
}

/** JSON text of a result; a value JSON cannot hold (a function, a symbol, a BigInt, a cycle) fails the attempt. */
export function serializeResult(result: unknown): string | undefined {
  if (result === undefined) return undefined;
  if (typeof result === 'function' || typeof result === 'symbol') {
    throw new UnrecoverableError(`result is not JSON-serialisable: the handler returned a ${typeof result}`);
  }
  try {
    return JSON.stringify(result);
  } catch (err) {
    throw new UnrecoverableError(`result is not JSON-serialisable: ${(err as Error).message}`);
  }
}
