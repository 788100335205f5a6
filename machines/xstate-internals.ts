/**
 * Every read of xstate internals that the table compiler needs, in one place.
 *
 * xstate's public API describes a machine's structure (states, transitions,
 * entry/exit lists, `after`, implementations) and evaluates guards
 * (`evaluateGuard` from `xstate/guards`), but it has no way to look inside a
 * built-in action: to apply an `assign` without an actor, or to know which
 * event a `raise` sends and when. Those shapes are xstate's own business and
 * may change in any release, so nothing else in litejobs touches them.
 * test/unit/xstate-internals.test.ts checks each shape below on real xstate
 * objects and names the one that changed when an upgrade breaks it.
 *
 * When a shape is missing here, the compiler refuses the machine
 * (MachineCompileError) rather than build a table that silently differs.
 *
 * Pure: imports nothing from xstate at run time.
 */
import { MachineCompileError } from './compile-error.js';

/** The `type` xstate's built-in action creators stamp on the functions they return. */
export const BUILTIN_ACTION = {
  assign: 'xstate.assign',
  raise: 'xstate.raise',
  cancel: 'xstate.cancel',
  log: 'xstate.log',
  emit: 'xstate.emit',
} as const;

/** Prefix of every built-in action type, including the ones the table refuses (sendTo, enqueueActions, …). */
export const BUILTIN_ACTION_PREFIX = 'xstate.';

type Props = Record<string, unknown>;

/** An `assign` argument: a function returning a partial context, or a map of values / functions per key. */
export type Assignment = ((args: unknown, params: unknown) => unknown) | Props;

const changed = (what: string) =>
  new MachineCompileError(`this xstate version changed the shape of ${what}: litejobs' machine compiler must be updated (machines/xstate-internals.ts)`);

/**
 * The `type` an action function carries: `xstate.assign`, `xstate.raise`, …
 * for built-ins; `undefined` for a machine's own side-effect functions.
 */
export function actionType(action: (...args: never[]) => unknown): string | undefined {
  const type = (action as unknown as Props).type;
  return typeof type === 'string' ? type : undefined;
}

/** What an `assign(...)` action was given. */
export function assignmentOf(action: (...args: never[]) => unknown): Assignment {
  const assignment = (action as unknown as Props).assignment;
  if (typeof assignment === 'function' || (typeof assignment === 'object' && assignment !== null)) {
    return assignment as Assignment;
  }
  throw changed('assign actions (no `assignment`)');
}

/**
 * What a `raise(event, { delay })` action was given: the event (an object, or
 * an expression) and the delay (`undefined` when the event is raised at once).
 */
export function raiseOf(action: (...args: never[]) => unknown): { event: unknown; delay: unknown } {
  const raw = action as unknown as Props;
  if (!('event' in raw) || !('delay' in raw)) throw changed('raise actions (no `event` / `delay`)');
  return { event: raw.event, delay: raw.delay };
}

/**
 * The guards an `and([...])`, `or([...])` or `not(...)` guard combines, so
 * that the compiler can check each is implemented before a job runs. Plain
 * predicates and `stateIn` combine none: `[]`.
 */
export function guardOperands(guard: (...args: never[]) => unknown): readonly unknown[] {
  const raw = guard as unknown as Props;
  if (typeof raw.check !== 'function') return []; // the machine's own predicate
  if ('guards' in raw) {
    if (!Array.isArray(raw.guards)) throw changed('and/or/not guards (`guards` is not an array)');
    return raw.guards as unknown[];
  }
  return []; // stateIn: reads the snapshot only
}
