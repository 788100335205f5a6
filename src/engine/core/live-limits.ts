/**
 * Limits changed while the queue runs (`queue.setLimits`): per job name, the
 * fields set over its definitions' `rateLimit`, `globalConcurrency` and
 * `groupConcurrency`, kept in the store (`name_limits`) so that every process
 * claims by them. A started queue reads them each second (LIMITS_EVERY_MS);
 * the limits in force are a snapshot, replaced when they change, which every
 * claim of the process reads (engine.limits).
 *
 * Stored as JSON, a field per limit: a value sets it, `false` turns it off
 * whatever the definitions say, and an absent field leaves the definitions'.
 * A change is merged into the stored one by the database (SQLite's
 * json_patch, PostgreSQL's jsonb ||), so two processes changing different
 * limits of one name at once both land.
 */
import { ValidationError } from '../../errors.js';
import { rejectUnknownOptions } from '../../lib/validate.js';
import type { NameLimits } from '../../store/store.js';
import { checkJobLimits, type RateLimit } from './limits.js';

/** How often a started queue reads the stored changes (once per process, whatever its pools): a change reaches every process within it. */
export const LIMITS_EVERY_MS = 1000;

/** What `queue.setLimits` takes: a value sets a limit, `null` turns it off; an absent field is left as it is. */
export interface LimitChanges {
  rateLimit?: RateLimit | null;
  globalConcurrency?: number | null;
  groupConcurrency?: number | null;
}

/** The stored form: `false` for a limit turned off. */
interface StoredChanges {
  rateLimit?: NonNullable<NameLimits['rateLimit']> | false;
  globalConcurrency?: number | false;
  groupConcurrency?: number | false;
}

const FIELDS = ['rateLimit', 'globalConcurrency', 'groupConcurrency'] as const;

/** Checks `changes` for `name` (as defineJob checks its limits); the JSON to merge into the stored changes. */
export function limitChangesText(name: string, changes: unknown): string {
  if (typeof changes !== 'object' || changes === null || Array.isArray(changes)) throw new ValidationError('setLimits changes must be an object: { rateLimit?, globalConcurrency?, groupConcurrency? }');
  rejectUnknownOptions('setLimits changes', changes, FIELDS);
  const given = changes as Record<string, unknown>;
  if (FIELDS.every((f) => given[f] === undefined)) throw new ValidationError('setLimits changes name no limit: give rateLimit, globalConcurrency or groupConcurrency (null turns one off)');
  const set: Record<string, unknown> = {};
  for (const f of FIELDS) if (given[f] !== undefined && given[f] !== null) set[f] = given[f];
  const checked = checkJobLimits(name, set) ?? {};
  const out: StoredChanges = {};
  for (const f of FIELDS) {
    if (given[f] === null) out[f] = false;
    else if (checked[f] !== undefined) (out as Record<string, unknown>)[f] = checked[f];
  }
  return JSON.stringify(out);
}

/** The definitions' limits of one name with its stored changes over them. */
export function withChanges(defined: NameLimits | undefined, stored: StoredChanges | undefined): NameLimits | undefined {
  if (!stored) return defined;
  const out: NameLimits = { ...defined };
  for (const f of FIELDS) {
    const v = stored[f];
    if (v === false) delete out[f];
    else if (v !== undefined) (out as Record<string, unknown>)[f] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

export interface LiveLimits {
  /**
   * The limits in force, by name: a snapshot, never changed, replaced by a
   * new one when they change. A claim decides by the one it read, and a
   * consumer knows its own settings are stale when the snapshot is another.
   */
  current(): ReadonlyMap<string, NameLimits>;
  /** The names whose limits were changed while the queue runs, with what was changed (null: turned off). */
  changed(): ReadonlyMap<string, LimitChanges>;
  /** Takes the stored changes (`Store.nameLimits`); true when the limits in force changed. */
  learn(rows: ReadonlyArray<{ name: string; rule: string }>): boolean;
}

export function createLiveLimits(defined: ReadonlyMap<string, NameLimits>): LiveLimits {
  let current: ReadonlyMap<string, NameLimits> = new Map(defined);
  let stored = new Map<string, StoredChanges>();
  let seen = '';
  return {
    current: () => current,
    changed() {
      const out = new Map<string, LimitChanges>();
      for (const [name, s] of stored) {
        const c: Record<string, unknown> = {};
        for (const f of FIELDS) if (s[f] !== undefined) c[f] = s[f] === false ? null : s[f];
        out.set(name, c as LimitChanges);
      }
      return out;
    },
    learn(rows) {
      const text = JSON.stringify(rows);
      if (text === seen) return false;
      seen = text;
      stored = new Map(rows.map((r) => [r.name, JSON.parse(r.rule) as StoredChanges]));
      const next = new Map<string, NameLimits>();
      for (const name of new Set([...defined.keys(), ...stored.keys()])) {
        const limits = withChanges(defined.get(name), stored.get(name));
        if (limits) next.set(name, limits);
      }
      const ordered = (m: ReadonlyMap<string, NameLimits>) => JSON.stringify([...m].sort(([a], [b]) => a.localeCompare(b)));
      if (ordered(next) === ordered(current)) return false;
      current = next;
      return true;
    },
  };
}
