/**
 * Unique, debounced and throttled jobs: the enqueue options, checked, and the
 * rule that says in which states a job still holds its key.
 *
 * A held key lies in the job's row (`unique_key`, with a unique index), so it
 * holds across processes. The row also says how long it is held
 * (`unique_span`); each transition tells the store the least span that still
 * holds in the state it enters (`uniqueNeed`), and the store gives the key
 * back (sets it to NULL) in the same compare-and-set when the row's span is
 * shorter. A key once given back is never taken again by that job: another
 * job may already hold it.
 */
import { FINISHED_STATES } from '../../../machines/job.machine.js';
import { ValidationError } from '../../errors.js';
import { UniqueSpan } from '../../store/contract/job.js';
import type { UniqueGuard } from '../../store/store.js';
import { checkInteger, checkKey, rejectUnknownOptions } from '../../lib/validate.js';

/** `unique.while`: how long a key is held. */
export type UniqueWhile = 'pending' | 'active' | 'until-finished';

export interface UniqueOptions {
  key: string;
  /**
   * `'pending'`: until the job first leaves its initial state (its first
   * claim, or a cancel). `'active'`: while it is pending or processing, i.e.
   * until it first enters any other state (completed, failed, dead,
   * cancelled). `'until-finished'` (default): until it enters a finished
   * state (completed, dead, cancelled, or a final state of its machine); a
   * failed job waiting for its retry still holds it.
   */
  while?: UniqueWhile;
}

export interface DebounceOptions {
  key: string;
  /** The job runs this many ms after the last enqueue with its key. */
  ms: number;
}

export interface ThrottleOptions {
  key: string;
  /** Enqueues with the key within this many ms of the first are dropped. */
  ms: number;
}

export { UniqueSpan };

const UNIQUE_KEYS = ['key', 'while'] as const;
const WINDOW_KEYS = ['key', 'ms'] as const;
const MAX_KEY = 1024;
/** A window longer than a year is a mistake, not a throttle. */
const MAX_WINDOW_MS = 366 * 24 * 3600 * 1000;

/** The parts of the enqueue options this module reads. */
interface GuardInput {
  key?: unknown;
  delay?: unknown;
  runAt?: unknown;
  unique?: UniqueOptions;
  debounce?: DebounceOptions;
  throttle?: ThrottleOptions;
}

/**
 * The guard an enqueue asks for, or null; `runAt` is the debounced run time.
 * One guard per job, and none beside an idempotency `key`: the two would
 * answer a repeated enqueue differently.
 */
export function checkUniqueOptions(options: GuardInput, now: number): { guard: UniqueGuard; runAt?: number } | null {
  const given = (['unique', 'debounce', 'throttle'] as const).filter((k) => options[k] !== undefined);
  if (given.length === 0) return null;
  if (given.length > 1) throw new ValidationError(`enqueue: give one of unique, debounce and throttle, not ${given.join(' and ')}`);
  const kind = given[0]!;
  if (options.key !== undefined) {
    throw new ValidationError(`enqueue: give key (held as long as the job exists) or ${kind}, not both`);
  }
  if (kind === 'unique') {
    const u = options.unique!;
    rejectUnknownOptions('enqueue unique', u, UNIQUE_KEYS);
    const key = checkKey('enqueue unique.key', u.key, MAX_KEY);
    const until = u.while ?? 'until-finished';
    if (until !== 'pending' && until !== 'active' && until !== 'until-finished') {
      throw new ValidationError(`enqueue unique.while must be "pending", "active" or "until-finished", got ${JSON.stringify(until)}`);
    }
    return { guard: { kind, key, span: UniqueSpan[until], until: null } };
  }
  const w = options[kind]!;
  rejectUnknownOptions(`enqueue ${kind}`, w, WINDOW_KEYS);
  const key = checkKey(`enqueue ${kind}.key`, w.key, MAX_KEY);
  const ms = checkInteger(`enqueue ${kind}.ms`, w.ms, 1, MAX_WINDOW_MS);
  // The enqueue puts the window on the database's clock (enqueue-paths.ts): `until` is set again there.
  if (kind === 'throttle') return { guard: { kind, key, span: UniqueSpan.always, until: now + ms, windowMs: ms } };
  if (options.delay !== undefined || options.runAt !== undefined) {
    throw new ValidationError('enqueue: debounce sets the run time (now + ms): give no delay or runAt with it');
  }
  // Held until the first claim: a debounced job still waiting takes the newer payload.
  return { guard: { kind, key, span: UniqueSpan.pending, until: null }, runAt: now + ms };
}

/** The states a job's machine knows, as far as keys are concerned. */
export interface UniqueStates {
  initial: string;
  /** The state a claim enters. */
  claimed: string;
  finalStates: ReadonlySet<string>;
}

/**
 * The least span that still holds its key in `state`: the initial state
 * needs 'pending', the claimed state 'active', any other state that is not
 * finished 'until-finished', a finished state more than any `while` gives.
 */
export function uniqueNeed(states: UniqueStates, state: string): number {
  if (state === states.initial) return UniqueSpan.pending;
  if (state === states.claimed) return UniqueSpan.active;
  if (FINISHED_STATES.includes(state) || states.finalStates.has(state)) return UniqueSpan.always;
  return UniqueSpan['until-finished'];
}
