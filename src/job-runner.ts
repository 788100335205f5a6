/**
 * Runs one handler: parses the payload, arms the timeout, and turns whatever
 * happens into an outcome. Handler failures are data, never crashes.
 */
import type { ErrorInfo } from '../machines/policy.js';
import type { Abortable } from './abortable.js';
import type { Handler, HandlerContext } from './define-job.js';
import { RetryLaterError, TimeoutError, UnrecoverableError } from './errors.js';

export type AbortReason = 'shutdown' | 'cancel' | 'lease';

export type Outcome =
  | { kind: 'completed'; result: string | undefined }
  | { kind: 'failed'; error: ErrorInfo }
  | { kind: 'aborted'; reason: AbortReason };

const MAX_STACK = 4000;

/** Turns anything thrown into the JSON-safe ErrorInfo the machine reasons about. */
export function toErrorInfo(err: unknown): ErrorInfo {
  if (!(err instanceof Error)) return { name: 'NonError', message: safeString(err) };
  // A user's error may have getters that throw: the job must still settle.
  const read = (key: string): unknown => {
    try {
      return (err as unknown as Record<string, unknown>)[key];
    } catch {
      return undefined;
    }
  };
  const name = read('name');
  const message = read('message');
  const info: ErrorInfo = { name: typeof name === 'string' ? name : 'Error', message: typeof message === 'string' ? message : '(unreadable error message)' };
  const code = read('code');
  if (typeof code === 'string') info.code = code;
  const stack = read('stack');
  if (typeof stack === 'string' && stack) info.stack = stack.slice(0, MAX_STACK);
  // By code too: a handler may import the error classes from another copy of litejobs (package build vs source).
  const delay = read('delay');
  if (err instanceof RetryLaterError || (code === 'LJ_ERR_RETRY_LATER' && typeof delay === 'number')) info.retryAfter = delay as number;
  if (err instanceof UnrecoverableError || code === 'LJ_ERR_UNRECOVERABLE') info.unrecoverable = true;
  return info;
}

function safeString(value: unknown): string {
  try {
    return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function fromReason(reason: unknown): Outcome {
  if (reason instanceof TimeoutError) return { kind: 'failed', error: toErrorInfo(reason) };
  return { kind: 'aborted', reason: reason as AbortReason };
}

function completed(result: unknown): Outcome {
  try {
    return { kind: 'completed', result: serializeResult(result) };
  } catch (err) {
    return { kind: 'failed', error: toErrorInfo(err) };
  }
}

const failed = (err: unknown): Outcome => ({ kind: 'failed', error: toErrorInfo(err) });

export async function runHandler(
  handler: Handler,
  payloadText: string,
  ctx: HandlerContext,
  abortable: Abortable,
  timeoutMs: number | null,
): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  if (timeoutMs !== null) timer = setTimeout(() => abortable.abort(new TimeoutError(timeoutMs)), timeoutMs);
  try {
    let value: unknown;
    try {
      value = handler(JSON.parse(payloadText) as unknown, ctx);
    } catch (err) {
      return failed(err);
    }
    if (typeof (value as PromiseLike<unknown> | null)?.then !== 'function') {
      return abortable.aborted ? fromReason(abortable.reason) : completed(value);
    }
    // Whichever comes first: a handler that ignores its signal cannot hold the slot past an abort.
    const settled = Promise.resolve(value as PromiseLike<unknown>).then(completed, failed);
    return await Promise.race([settled, abortable.whenAborted().then(fromReason)]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

function serializeResult(result: unknown): string | undefined {
  if (result === undefined) return undefined;
  try {
    return JSON.stringify(result);
  } catch (err) {
    throw new UnrecoverableError(`result is not JSON-serialisable: ${(err as Error).message}`);
  }
}

