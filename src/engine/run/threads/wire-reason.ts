/**
 * An abort reason across the thread boundary. The main thread aborts with a
 * string ('cancel', 'shutdown', 'lease') or an error (a TimeoutError); the
 * thread's signal must abort with an equivalent reason, so that a handler
 * that checks `reason instanceof TimeoutError` or its `code` behaves as it
 * would on the main thread.
 */
import { TimeoutError } from '../../../errors.js';
import { toErrorInfo } from '../job-runner.js';
import type { WireReason } from './messages.js';

export function toWireReason(reason: unknown): WireReason {
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error) {
    const { name, message, code } = toErrorInfo(reason);
    return code === undefined ? { name, message } : { name, message, code };
  }
  try {
    return String(reason);
  } catch {
    return 'aborted';
  }
}

/** In the thread: a TimeoutError of this thread's copy of the class, or an Error with the same name, message and code. */
export function fromWireReason(reason: WireReason): unknown {
  if (typeof reason === 'string') return reason;
  const err = reason.code === 'LJ_ERR_TIMEOUT' ? new TimeoutError(0) : Object.assign(new Error(), reason.code === undefined ? {} : { code: reason.code });
  err.message = reason.message;
  err.name = reason.name;
  return err;
}
