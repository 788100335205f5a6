/** Durations as users write them: a number of ms, or a string such as '500ms', '30s', '15m', '12h', '7d'. */
import { ValidationError } from '../errors.js';

export type Duration = number | string;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export function parseDuration(what: string, value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.round(value);
  if (typeof value === 'string') {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$/.exec(value);
    if (m) return Math.round(Number(m[1]) * UNITS[m[2]!]!);
  }
  throw new ValidationError(`${what} must be a duration: ms ≥ 0, or a string such as '30s', '12h', '7d' (got ${JSON.stringify(value)})`);
}

/** The last instant a JavaScript Date can represent (year 275760). */
export const MAX_DATE_MS = 8.64e15;
