/**
 * What `ctx.progress(value)` takes: a number (say 0 to 100, which the page
 * draws as a bar) or any JSON value (`{ done: 40, of: 200 }`), kept on the
 * job and sent to every watcher as a change. Checked where the handler calls
 * (its own thread too), so a bad value fails the call, not the job's record.
 */
import { ValidationError } from '../../errors.js';

/** The most a progress value's JSON text may take: it is written, and sent to watchers, at every update. */
export const PROGRESS_MAX_BYTES = 8192;

/** The value's JSON text; a ValidationError (LJ_ERR_VALIDATION) for what JSON cannot hold, or too much of it. */
export function progressText(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new ValidationError(`progress must be a finite number or a JSON value, got ${value}`);
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new ValidationError(`progress must be a JSON value: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (text === undefined) throw new ValidationError(`progress must be a JSON value, got ${typeof value}`);
  const bytes = Buffer.byteLength(text);
  if (bytes > PROGRESS_MAX_BYTES) throw new ValidationError(`progress is ${bytes} bytes of JSON, over the ${PROGRESS_MAX_BYTES} a progress value may take`);
  return text;
}
