/**
 * Runs one handler: parses the payload, arms the timeout, and turns whatever
 * happens into an outcome. Handler failures are data, never crashes.
 */
import type { ErrorInfo } from '../machines/policy.js';
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
  const info: ErrorInfo = { name: err.name, message: err.message };
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') info.code = code;
  if (err.stack) info.stack = err.stack.slice(0, MAX_STACK);
  if (err instanceof RetryLaterError) info.retryAfter = err.delay;
  if (err instanceof UnrecoverableError) info.unrecoverable = true;
  return info;
}

function safeString(value: unknown): string {
  try {
    return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

export async function runHandler(
  handler: Handler,
  payloadText: string,
  ctx: HandlerContext,
  controller: AbortController,
  timeoutMs: number | null,
): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const aborted = new Promise<Outcome>((resolve) => {
    const onAbort = () => {
      const reason = controller.signal.reason as unknown;
      if (reason instanceof TimeoutError) resolve({ kind: 'failed', error: toErrorInfo(reason) });
      else resolve({ kind: 'aborted', reason: (reason as AbortReason) ?? 'shutdown' });
    };
    if (controller.signal.aborted) onAbort();
    else controller.signal.addEventListener('abort', onAbort, { once: true });
  });
  if (timeoutMs !== null) timer = setTimeout(() => controller.abort(new TimeoutError(timeoutMs)), timeoutMs);
  const ran = (async (): Promise<Outcome> => {
    try {
      const result = await handler(JSON.parse(payloadText) as unknown, ctx);
      return { kind: 'completed', result: serializeResult(result) };
    } catch (err) {
      return { kind: 'failed', error: toErrorInfo(err) };
    }
  })();
  try {
    // Whichever comes first: a handler that ignores its signal cannot hold the slot past an abort.
    return await Promise.race([ran, aborted]);
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

