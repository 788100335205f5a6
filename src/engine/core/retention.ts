/**
 * Retention: how long finished jobs are kept, per finished state, for the
 * whole queue (`createQueue({ retention })`) and per job name
 * (`defineJob({ retention })`, which replaces the queue's for the states it
 * names). A state's rule is an age, a count (the newest N of that state, per
 * job name), or both (a job goes when either says so); `0` for either
 * deletes a job in the move that finishes it.
 *
 * What each process enforces: the move that finishes a job deletes it at
 * once when its name's rule says so (apply-event.ts, run-holds.ts); the
 * retention loop (consumer.ts) deletes by queue-wide age across every name,
 * and by count, or by a name's own age, for the names this process runs.
 */
import { ValidationError } from '../../errors.js';
import { parseDuration, type Duration } from '../../lib/duration.js';
import { rejectUnknownOptions } from '../../lib/validate.js';

/** A finished state's rule: an age, or `{ age?, count? }`. */
export type StateRetention = Duration | { age?: Duration; count?: number };

/** Retention per finished state, as `defineJob` takes it. */
export interface JobRetention {
  completed?: StateRetention;
  dead?: StateRetention;
  cancelled?: StateRetention;
}

export const RETENTION_STATES = ['completed', 'dead', 'cancelled'] as const;
type RetainedState = (typeof RETENTION_STATES)[number];

/** A state's rule, resolved: ms and a count; absent: no limit of that kind. */
export interface Keep {
  ageMs?: number;
  count?: number;
}

/** Resolved retention per finished state (absent: kept). */
export type ResolvedRetention = Partial<Record<RetainedState, Keep>>;

/** Rows of a state kept at most by a count: a bound no listing of a state needs more than. */
const MAX_COUNT = 1_000_000_000;
/** The longest age a rule takes: a thousand years, so that now minus it is still a time every store holds. */
export const MAX_AGE_MS = 1000 * 365 * 86_400_000;

/** A duration of a retention rule, bounded (MAX_AGE_MS). */
export function parseAge(what: string, value: unknown): number {
  const ms = parseDuration(what, value);
  if (ms > MAX_AGE_MS) throw new ValidationError(`${what} must be at most a thousand years ('365000d'), got ${JSON.stringify(value)}`);
  return ms;
}

function resolveKeep(what: string, value: StateRetention): Keep {
  if (typeof value !== 'object' || value === null) return { ageMs: parseAge(what, value) };
  rejectUnknownOptions(what, value, ['age', 'count']);
  const keep: Keep = {};
  if (value.age !== undefined) keep.ageMs = parseAge(`${what}.age`, value.age);
  if (value.count !== undefined) {
    if (!Number.isInteger(value.count) || value.count < 0 || value.count > MAX_COUNT) {
      throw new ValidationError(`${what}.count must be a whole number of jobs, 0 to ${MAX_COUNT} (got ${JSON.stringify(value.count)})`);
    }
    keep.count = value.count;
  }
  if (keep.ageMs === undefined && keep.count === undefined) throw new ValidationError(`${what} needs an age, a count, or both`);
  return keep;
}

/** Validates and resolves the finished states' rules of `value` (other keys are the caller's: `extra`). */
export function resolveRetention(what: string, value: unknown, extra: readonly string[] = []): ResolvedRetention {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ValidationError(`${what} must be an object such as { completed: '1d', dead: { age: '30d', count: 1000 } }`);
  rejectUnknownOptions(what, value, [...RETENTION_STATES, ...extra]);
  const out: ResolvedRetention = {};
  for (const state of RETENTION_STATES) {
    const rule = (value as JobRetention)[state];
    if (rule !== undefined) out[state] = resolveKeep(`${what}.${state}`, rule);
  }
  return out;
}

/** One pass of the retention loop: which jobs of a state it deletes. */
export type PurgeTask =
  /** Every name's jobs older than `ageMs` (0: every one), but those of `except` (names with a rule of their own for the state). */
  | { state: string; ageMs: number; except: string[] }
  /** One name's jobs: older than `ageMs`, or beyond its newest `count`. */
  | { state: string; name: string; ageMs?: number; count?: number };

export interface RetentionRules {
  /** True when a job of `name` moving into `state` is deleted by that move (age or count 0). */
  deletesAtOnce(name: string, state: string): boolean;
  /** The rules of the job names this process defines, as the store keeps them (JSON; null: none of its own). */
  own(): Array<{ name: string; rule: string | null }>;
  /** Takes the job names' rules as the store holds them (saved by the processes defining them); this process's own win. */
  learn(stored: ReadonlyArray<{ name: string; rule: string }>): void;
  /** What the retention loop deletes now: by the queue's rule, and by every name's own. */
  tasks(): PurgeTask[];
}

/** True when the queue deletes some finished state after a while across names: the index of finished jobs by age is wanted at open. */
export function deletesByAge(queue: ResolvedRetention): boolean {
  return Object.values(queue).some((keep) => keep.ageMs !== undefined && keep.ageMs > 0);
}

const atOnce = (keep: Keep | undefined) => keep !== undefined && (keep.ageMs === 0 || keep.count === 0);

/** A stored rule, or undefined when it is not one this version reads (a newer version's, or damaged). */
function parseStored(text: string): ResolvedRetention | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null) return undefined;
    const out: ResolvedRetention = {};
    for (const state of RETENTION_STATES) {
      const keep = (value as Record<string, unknown>)[state] as Keep | undefined;
      if (keep === undefined) continue;
      const fine = (n: unknown) => n === undefined || (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0);
      if (typeof keep !== 'object' || keep === null || !fine(keep.ageMs) || !fine(keep.count)) return undefined;
      out[state] = keep;
    }
    return out;
  } catch {
    return undefined;
  }
}

/**
 * The queue's rules with each name's own (`own`: the names this process
 * defines with a retention of their own; `runs`: every name it defines).
 * Names other processes define bring their rules through the store
 * (`learn`): every process then leaves them out of the queue-wide age, and
 * enforces them, a rule of 0 included (a job another process finished or
 * cancelled, not knowing it, is deleted by the next pass).
 */
export function retentionRules(queue: ResolvedRetention, own: ReadonlyMap<string, ResolvedRetention>, runs: readonly string[]): RetentionRules {
  let byName = new Map(own);
  const ruleOf = (name: string, state: string): Keep | undefined => byName.get(name)?.[state as RetainedState] ?? queue[state as RetainedState];
  return {
    deletesAtOnce: (name, state) => atOnce(ruleOf(name, state)),
    own: () => runs.map((name) => ({ name, rule: own.has(name) ? JSON.stringify(own.get(name)) : null })),
    learn(stored) {
      const next = new Map<string, ResolvedRetention>();
      for (const { name, rule } of stored) {
        const parsed = parseStored(rule);
        if (parsed) next.set(name, parsed);
      }
      // A name this process defines goes by its definition, whatever an older process saved.
      for (const name of runs) next.delete(name);
      for (const [name, rule] of own) next.set(name, rule);
      byName = next;
    },
    tasks() {
      const tasks: PurgeTask[] = [];
      for (const state of RETENTION_STATES) {
        const named = [...byName].filter(([, r]) => r[state] !== undefined);
        const shared = queue[state];
        if (shared?.ageMs !== undefined) tasks.push({ state, ageMs: shared.ageMs, except: named.map(([name]) => name) });
        // The queue's count holds for each name this process runs that has no rule of its own for the state.
        if (shared?.count !== undefined) for (const name of runs) if (byName.get(name)?.[state] === undefined) tasks.push({ state, name, count: shared.count });
        for (const [name, rule] of named) {
          const keep = rule[state]!;
          tasks.push({ state, name, ...(keep.ageMs === undefined ? {} : { ageMs: keep.ageMs }), ...(keep.count === undefined ? {} : { count: keep.count }) });
        }
      }
      return tasks;
    },
  };
}
