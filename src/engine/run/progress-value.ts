/**
 * What `ctx.progress(value)` and `ctx.publish(key, value)` take. Progress: a number (say 0 to 100, which the page
 * draws as a bar) or any JSON value (`{ done: 40, of: 200 }`), kept on the
 * job and sent to every watcher as a change. Checked where the handler calls
 * (its own thread too), so a bad value fails the call, not the job's record.
 */
import { ValidationError } from '../../errors.js';

/** The most a progress value's JSON text may take: it is written, and sent to watchers, at every update. */
export const PROGRESS_MAX_BYTES = 8192;

/** The most a published value's JSON text may take (ctx.publish): one write per publish, read by any process. */
export const PUBLISHED_MAX_BYTES = 65_536;

/** The value's JSON text; a ValidationError (LJ_ERR_VALIDATION) for what JSON cannot hold, or too much of it. */
export function progressText(value: unknown): string {
  return valueText('progress', value, PROGRESS_MAX_BYTES);
}

/** A JSON value's text as `what` takes it (a progress update, a published value), at most `maxBytes`. */
export function valueText(what: string, value: unknown, maxBytes: number): string {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new ValidationError(`${what} must be a finite number or a JSON value, got ${value}`);
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new ValidationError(`${what} must be a JSON value: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (text === undefined) throw new ValidationError(`${what} must be a JSON value, got ${typeof value}`);
  const bytes = Buffer.byteLength(text);
  if (bytes > maxBytes) throw new ValidationError(`${what} is ${bytes} bytes of JSON, over the ${maxBytes} it may take`);
  return text;
}

/** What a published value's key may be: what a URL, a log line and a JSON path carry safely. */
const PUBLISH_KEY = /^[A-Za-z0-9_.:-]{1,100}$/;

/** Checks a key of ctx.publish and queue.published. */
export function checkPublishKey(what: string, key: unknown): string {
  if (typeof key !== 'string' || !PUBLISH_KEY.test(key)) throw new ValidationError(`${what}: the key must be 1 to 100 of A-Z a-z 0-9 _ . : -`);
  return key;
}
