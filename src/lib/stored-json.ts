/**
 * JSON a store holds, read back for a view: what litejobs writes is always
 * JSON, but a row edited by hand, or written by a tool of one's own, may not
 * be. A view (the API, the page, the CLI) must still show every row a store
 * holds, so text that is not JSON is shown as that text, and an error column
 * as an error that says so, instead of failing every listing that includes it.
 */
import type { ErrorInfo } from '../../machines/policy.js';

const SHOWN = 200;

/** The stored JSON's value; text that is not JSON, as a string. */
export function storedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A stored error; one that is not a JSON object, as an error saying so with the start of its text. */
export function storedErrorInfo(text: string): ErrorInfo {
  const value = storedJson(text);
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as ErrorInfo).message === 'string') return value as ErrorInfo;
  return { name: 'UnreadableError', message: `the stored error is not one litejobs wrote: ${text.slice(0, SHOWN)}` };
}
