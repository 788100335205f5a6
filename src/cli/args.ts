/**
 * Parsers for argument and option values. Each throws commander's
 * InvalidArgumentError, so a bad value is a usage error (exit 2) reported on
 * one line before anything opens the database.
 */
import { InvalidArgumentError } from 'commander';
import { LitejobsError } from '../errors.js';
import { parseDuration } from '../lib/duration.js';
import { changedNumber, numberNotKept } from '../lib/json-numbers.js';

function integer(text: string, what: string, min: number, max: number): number {
  const n = /^[+-]?\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new InvalidArgumentError(`${what} must be an integer from ${min} to ${max}.`);
  }
  return n;
}

export const parseJobId = (text: string): number => integer(text, 'a job id', 1, Number.MAX_SAFE_INTEGER);
export const parseLimit = (text: string): number => integer(text, 'the limit', 1, 10_000);
export const parseAfter = (text: string): number => integer(text, 'the cursor', 0, Number.MAX_SAFE_INTEGER);
export const parsePriority = (text: string): number => integer(text, 'the priority', -1_000_000, 1_000_000);
export const parseInterval = (text: string): number => integer(text, 'the interval (ms)', 50, 86_400_000);
/** 0: any free port. */
export const parsePort = (text: string): number => integer(text, 'a port (0: any free port)', 0, 65_535);
export const parseConcurrency = (text: string): number => integer(text, 'the concurrency', 1, 1000);
export const parseConnections = (text: string): number => integer(text, 'a number of connections', 1, 1_000_000);
export const parseSeed = (text: string): number => integer(text, 'a seed', 0, 0xffff_ffff);
export const parseRate = (text: string): number => integer(text, 'the rate (jobs per second)', 0, 1000);
/** A bearer token: at least 8 characters (the HTTP plugin's own rule), no whitespace. */
export function parseToken(text: string): string {
  if (text.length < 8 || /\s/.test(text)) throw new InvalidArgumentError('the token must be at least 8 characters, without spaces.');
  return text;
}
export const parseBatch = (text: string): number => integer(text, 'the batch size', 1, 100_000);
export const parseReserve = (text: string): number => integer(text, 'the number of ids to reserve', 0, 1_000_000_000_000);

/** The payload: any JSON value whose numbers survive as JavaScript numbers. */
export function parseJson(text: string): unknown {
  const changed = changedNumber(text);
  if (changed !== null) throw new InvalidArgumentError(`${numberNotKept(changed)}: write it as a string.`);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new InvalidArgumentError(`not valid JSON (${(err as Error).message}).`);
  }
}

/** A delay: a number of ms, or a duration such as 500ms, 5s, 2m, 1h, 7d. */
export function parseDelay(text: string): number {
  if (/^\d+$/.test(text.trim())) return Number(text);
  try {
    return parseDuration('the delay', text);
  } catch (err) {
    if (err instanceof LitejobsError) throw new InvalidArgumentError('a delay is a number of ms or a duration such as 5s, 2m, 1h.');
    throw err;
  }
}

/**
 * `--pool <pool>=<names>:<n>`, repeatable: a worker pool (createQueue `pools`), its job names
 * comma-separated; the queue checks the names against the jobs it runs.
 */
export function collectPool(text: string, previous: Record<string, { jobs: string[]; concurrency: number }> | undefined): Record<string, { jobs: string[]; concurrency: number }> {
  // The slots after the last ':' (job names may hold ':' themselves).
  const m = /^([A-Za-z0-9._-]{1,64})=([^=\s]+):(\d{1,5})$/.exec(text.trim());
  if (!m) throw new InvalidArgumentError('give a pool as <pool>=<job names, comma-separated>:<slots>, e.g. emails=send-email,notify:20.');
  const [, pool, names, n] = m;
  if (previous && Object.hasOwn(previous, pool!)) throw new InvalidArgumentError(`the pool "${pool}" is given twice.`);
  return { ...previous, [pool!]: { jobs: names!.split(',').filter((s) => s !== ''), concurrency: integer(n!, 'a pool\'s slots', 1, 1000) } };
}
