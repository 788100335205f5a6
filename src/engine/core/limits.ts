/**
 * Limits a job definition sets for every process (`groupConcurrency`,
 * `globalConcurrency`, `rateLimit`), checked once at `defineJob` and handed to
 * each claim, which enforces them inside its transaction
 * (src/store/claim-limits.ts). See docs/guides/groups-and-rate-limits.md.
 */
import { ValidationError } from '../../errors.js';
import { parseDuration, type Duration } from '../../lib/duration.js';
import type { NameLimits } from '../../store/store.js';
import { checkInteger, checkString, rejectUnknownOptions } from '../../lib/validate.js';

export interface RateLimit {
  /** Claims allowed in any window of `per`. */
  max: number;
  /** The window: ms, or a duration such as '1s', '1m'. */
  per: Duration;
  /** One bucket per group for this name's grouped jobs, instead of one for the name. Default false. */
  perGroup?: boolean;
}

/** The limit fields of a job definition. */
export interface JobLimits {
  /** Jobs of one group running at once (the group's jobs of every name count), unless the group has its own (`queue.setGroupConcurrency`). */
  groupConcurrency?: number;
  /** Jobs of this name running at once across every process. */
  globalConcurrency?: number;
  rateLimit?: RateLimit;
}

const RATE_KEYS = ['max', 'per', 'perGroup'] as const;

/** A group name: a non-empty string without NUL (PostgreSQL text cannot hold one). */
export function checkGroup(what: string, value: unknown): string {
  const group = checkString(what, value, 200);
  if (group.includes('\0')) throw new ValidationError(`${what} must not contain a NUL character`);
  return group;
}

/** The limits of one definition, checked; undefined when it sets none. */
export function checkJobLimits(name: string, def: JobLimits): NameLimits | undefined {
  const out: NameLimits = {};
  if (def.groupConcurrency !== undefined) out.groupConcurrency = checkInteger(`job "${name}" groupConcurrency`, def.groupConcurrency, 1, 1_000_000);
  if (def.globalConcurrency !== undefined) out.globalConcurrency = checkInteger(`job "${name}" globalConcurrency`, def.globalConcurrency, 1, 1_000_000);
  if (def.rateLimit !== undefined) {
    const rate = def.rateLimit;
    if (typeof rate !== 'object' || rate === null) throw new ValidationError(`job "${name}" rateLimit must be { max, per }`);
    rejectUnknownOptions(`job "${name}" rateLimit`, rate, RATE_KEYS);
    const perMs = parseDuration(`job "${name}" rateLimit.per`, rate.per);
    if (perMs < 1) throw new ValidationError(`job "${name}" rateLimit.per must be at least 1 ms`);
    if (rate.perGroup !== undefined && typeof rate.perGroup !== 'boolean') throw new ValidationError(`job "${name}" rateLimit.perGroup must be a boolean`);
    out.rateLimit = { max: checkInteger(`job "${name}" rateLimit.max`, rate.max, 1, 1_000_000), perMs, perGroup: rate.perGroup === true };
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The limits of every definition that sets any, by name: what each claim carries. */
export function limitsByName(definitions: Iterable<JobLimits & { name: string }>): Map<string, NameLimits> {
  const out = new Map<string, NameLimits>();
  for (const def of definitions) {
    const limits = checkJobLimits(def.name, def);
    if (limits) out.set(def.name, limits);
  }
  return out;
}
