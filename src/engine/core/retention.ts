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

function resolveKeep(what: string, value: StateRetention): Keep {
  if (typeof value !== 'object' || value === null) return { ageMs: parseDuration(what, value) };
  rejectUnknownOptions(what, value, ['age', 'count']);
  const keep: Keep = {};
  if (value.age !== undefined) keep.ageMs = parseDuration(`${what}.age`, value.age);
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
  /** Every name's jobs older than `ageMs`, but those of `except` (names with a rule of their own for the state). */
  | { state: string; ageMs: number; except: string[] }
  /** One name's jobs: older than `ageMs`, or beyond its newest `count`. */
  | { state: string; name: string; ageMs?: number; count?: number };

export interface RetentionRules {
  /** True when a job of `name` moving into `state` is deleted by that move (age or count 0). */
  deletesAtOnce(name: string, state: string): boolean;
  /** What the retention loop deletes, for the names this process runs. */
  tasks: readonly PurgeTask[];
  /** Some finished state is deleted after a while, across names: the index of finished jobs by age is wanted. */
  byAge: boolean;
  /** Some task deletes by name (a count, or a name's own age): the index of finished jobs by name is wanted. */
  byName: boolean;
  /** Some state is deleted at all: the loop runs (it forgets kept outcomes too). */
  any: boolean;
}

/** True when the queue deletes some finished state after a while across names: the index of finished jobs by age is wanted at open. */
export function deletesByAge(queue: ResolvedRetention): boolean {
  return Object.values(queue).some((keep) => keep.ageMs !== undefined && keep.ageMs > 0);
}

const atOnce = (keep: Keep | undefined) => keep !== undefined && (keep.ageMs === 0 || keep.count === 0);

/** The queue's rules with each name's own (`byName`: a job name's retention, resolved). */
export function retentionRules(queue: ResolvedRetention, byName: ReadonlyMap<string, ResolvedRetention>, runs: readonly string[]): RetentionRules {
  const ruleOf = (name: string, state: string): Keep | undefined => {
    const own = byName.get(name)?.[state as RetainedState];
    return own ?? queue[state as RetainedState];
  };
  const tasks: PurgeTask[] = [];
  for (const state of RETENTION_STATES) {
    const own = [...byName].filter(([, r]) => r[state] !== undefined).map(([name]) => name);
    const shared = queue[state];
    if (shared?.ageMs !== undefined && shared.ageMs > 0) tasks.push({ state, ageMs: shared.ageMs, except: own });
    for (const name of runs) {
      const keep = byName.get(name)?.[state];
      // A name with no rule of its own takes the queue's count; the queue's age is the shared task above.
      const task: PurgeTask = { state, name };
      if (keep?.ageMs !== undefined && keep.ageMs > 0) task.ageMs = keep.ageMs;
      const count = keep ? keep.count : shared?.count;
      if (count !== undefined && count > 0) task.count = count;
      if (task.ageMs !== undefined || task.count !== undefined) tasks.push(task);
    }
  }
  const all = [queue, ...byName.values()];
  return {
    deletesAtOnce: (name, state) => atOnce(ruleOf(name, state)),
    tasks,
    byAge: tasks.some((t) => !('name' in t)),
    byName: tasks.some((t) => 'name' in t),
    any: all.some((r) => Object.keys(r).length > 0),
  };
}
