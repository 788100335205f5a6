/**
 * Input checks at the public boundary. Each failure is a ValidationError with
 * a stable code, raised before anything is written.
 */
import type { RetryPolicy } from '../../machines/policy.js';
import { ValidationError } from '../errors.js';
import { JsonText, jsonDepth, MAX_PAYLOAD_DEPTH } from './json-text.js';

export function rejectUnknownOptions(what: string, options: object, allowed: readonly string[]): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ValidationError(`${what} must be an object`);
  }
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      throw new ValidationError(`${what}: unknown option "${key}" (allowed: ${allowed.join(', ')})`, 'LJ_ERR_UNKNOWN_OPTION');
    }
  }
}

export function checkInteger(what: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ValidationError(`${what} must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

export function checkNumber(what: string, value: unknown, min: number, max = Number.MAX_VALUE): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new ValidationError(`${what} must be a number from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

/** Half of a UTF-16 surrogate pair, standing alone. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function checkString(what: string, value: unknown, maxLength: number): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) {
    throw new ValidationError(`${what} must be a non-empty string of at most ${maxLength} characters`);
  }
  // PostgreSQL cannot store a NUL in text (SQLite would): refused on both, the same 400.
  if (value.includes('\0')) throw new ValidationError(`${what} must not contain a NUL character`);
  // Half a surrogate pair is no text either: PostgreSQL would store U+FFFD in its place (two keys would meet, and
  // a key would not read back as written), SQLite bytes that are not UTF-8.
  if (LONE_SURROGATE.test(value as string)) throw new ValidationError(`${what} must be text: it holds half of a UTF-16 surrogate pair`);
  return value as string;
}

/**
 * A key a unique index holds (idempotency, unique, debounce, throttle): a
 * string as checkString takes it, of at most `maxBytes` in UTF-8, so that
 * every store can index it (PostgreSQL's B-tree refuses an entry over about
 * 2.7 KB: 1,024 characters of three bytes each would be one).
 */
export function checkKey(what: string, value: unknown, maxBytes: number): string {
  const key = checkString(what, value, maxBytes);
  if (key.length * 3 > maxBytes && Buffer.byteLength(key, 'utf8') > maxBytes) throw new ValidationError(`${what} must be at most ${maxBytes} bytes in UTF-8`);
  return key;
}

/** A file path: a non-empty string without NUL (which the C layer would cut the path at). */
export function checkPath(what: string, value: unknown): string {
  checkString(what, value, 4096);
  if ((value as string).includes('\0')) throw new ValidationError(`${what} must not contain a NUL character`);
  return value as string;
}

/** Serialises a payload, enforcing JSON-ability and the size limit. */
export function serializePayload(payload: unknown, maxBytes: number): string {
  let text: string | undefined;
  try {
    text = payload instanceof JsonText ? payload.text : JSON.stringify(payload === undefined ? null : payload);
  } catch (err) {
    // A value nested thousands deep overflows the stack of JSON.stringify itself: it is too deep, as one a level past the bound is.
    if (err instanceof RangeError) throw new ValidationError(`payload nests deeper than ${MAX_PAYLOAD_DEPTH} levels`, 'LJ_ERR_PAYLOAD_TOO_LARGE', { cause: err });
    throw new ValidationError(`payload is not JSON-serialisable: ${(err as Error).message}`, 'LJ_ERR_PAYLOAD_NOT_JSON', { cause: err });
  }
  if (text === undefined) throw new ValidationError('payload is not JSON-serialisable', 'LJ_ERR_PAYLOAD_NOT_JSON');
  // Byte length only matters near the limit; UTF-8 is at most 3 bytes per UTF-16 unit.
  if (text.length * 3 > maxBytes && Buffer.byteLength(text, 'utf8') > maxBytes) {
    throw new ValidationError(`payload is ${Buffer.byteLength(text, 'utf8')} bytes, over the ${maxBytes}-byte limit`, 'LJ_ERR_PAYLOAD_TOO_LARGE');
  }
  if (jsonDepth(text, MAX_PAYLOAD_DEPTH) > MAX_PAYLOAD_DEPTH) {
    throw new ValidationError(`payload nests deeper than ${MAX_PAYLOAD_DEPTH} levels`, 'LJ_ERR_PAYLOAD_TOO_LARGE');
  }
  return text;
}

const RETRY_KEYS = ['attempts', 'backoff', 'jitter', 'maxDelay', 'retryOn', 'deadOn', 'maxRetryLater'] as const;

/**
 * Checks a retry policy. `serialisable` policies (given per enqueue, stored on
 * the row) may not hold functions.
 */
export function checkRetryPolicy(what: string, policy: unknown, serialisable: boolean): RetryPolicy {
  rejectUnknownOptions(what, policy as object, RETRY_KEYS);
  const p = policy as RetryPolicy;
  if (p.attempts !== undefined) checkInteger(`${what}.attempts`, p.attempts, 1, 1_000_000);
  if (p.jitter !== undefined) checkNumber(`${what}.jitter`, p.jitter, 0, 1);
  if (p.maxDelay !== undefined) checkNumber(`${what}.maxDelay`, p.maxDelay, 0);
  if (p.maxRetryLater !== undefined) checkInteger(`${what}.maxRetryLater`, p.maxRetryLater, 0, 1_000_000);
  if (p.backoff !== undefined) {
    if (typeof p.backoff === 'function') {
      if (serialisable) throw new ValidationError(`${what}.backoff: a function cannot be stored with a job; define it with defineJob`);
    } else {
      rejectUnknownOptions(`${what}.backoff`, p.backoff, ['type', 'delay', 'factor']);
      if (!['fixed', 'linear', 'exponential'].includes(p.backoff.type)) {
        throw new ValidationError(`${what}.backoff.type must be fixed, linear or exponential`);
      }
      checkNumber(`${what}.backoff.delay`, p.backoff.delay, 0);
      if ('factor' in p.backoff && p.backoff.factor !== undefined) checkNumber(`${what}.backoff.factor`, p.backoff.factor, 1);
    }
  }
  for (const key of ['retryOn', 'deadOn'] as const) {
    const m = p[key];
    if (m === undefined) continue;
    if (typeof m === 'function') {
      if (serialisable) throw new ValidationError(`${what}.${key}: a function cannot be stored with a job; define it with defineJob`);
    } else if (!Array.isArray(m) || m.some((s) => typeof s !== 'string')) {
      throw new ValidationError(`${what}.${key} must be a list of error names or codes, or a function`);
    }
  }
  return p;
}
