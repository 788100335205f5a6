/**
 * A payload given as JSON text, stored as it is: a webhook's body keeps the
 * provider's bytes (a number past 2^53 keeps its digits in the store, where
 * parsing and stringifying again would change it). A job's schema, when it
 * has one, validates the parsed value, and the schema's output is stored.
 * The text must be JSON: its maker has parsed it already.
 */
export class JsonText {
  constructor(readonly text: string) {}
  /** The value, for a schema to validate. */
  parse(): unknown {
    return JSON.parse(this.text);
  }
}

/**
 * How deep a payload may nest: SQLite's JSON functions stop at 1000 levels
 * (a deeper payload could not be searched), and answering a job nested a few
 * thousand levels deep overflows the stack of JSON.stringify.
 */
export const MAX_PAYLOAD_DEPTH = 1000;

/** The nesting depth of a JSON text, counted up to `limit + 1` (a linear scan, strings skipped). */
export function jsonDepth(text: string, limit: number): number {
  // Each level takes an opening and a closing bracket: a short text cannot be deep.
  if (text.length <= 2 * limit) return 0;
  let depth = 0;
  let deepest = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < n && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return deepest;
}
