/**
 * Compiles a flat XState machine into a transition table for the hot path.
 *
 * xstate's pure `transition()` builds a throwaway actor scope per call (~29 µs
 * here); the table looks up (state, event type), evaluates the same guards
 * and applies the same `assign` functions, in the same order
 * (exit → transition → entry), without that scope. A property test drives
 * random event sequences through both and demands identical results, so the
 * machine stays the single source of truth.
 *
 * Supported: atomic and final states at the root, guards (named, inline,
 * parameterised, and/or/not, stateIn), `assign`, `after` delays (reported, not
 * armed: the queue persists `run_at` and delivers the event itself). Anything
 * else (nested states, `always`, invoke, raise/sendTo/enqueueActions, wildcard
 * events) is refused at compile time, so a machine the table cannot mirror
 * never reaches a queue.
 *
 * The machine is read through xstate's public API (state nodes, transitions,
 * entry/exit, `after`, implementations, `resolveState`, `initialTransition`,
 * `evaluateGuard` from `xstate/guards`, which runs guards exactly as xstate
 * does). What only internals reveal (what an `assign` or `raise` was given,
 * the operands of and/or/not) comes from ./xstate-internals.ts, whose test
 * fails loudly on an xstate upgrade that changes it.
 *
 * Pure: imports xstate and the error registry only (see compile-error.ts).
 */
import { initialTransition, type AnyMachineSnapshot, type AnyStateMachine, type AnyStateNode } from 'xstate';
import { evaluateGuard, type UnknownGuard } from 'xstate/guards';
import { MachineCompileError } from './compile-error.js';
import { actionType, assignmentOf, BUILTIN_ACTION, BUILTIN_ACTION_PREFIX, guardOperands, raiseOf } from './xstate-internals.js';

export { MachineCompileError } from './compile-error.js';

type Ctx = Record<string, unknown>;
type Evt = { type: string } & Record<string, unknown>;
type Action = (ctx: Ctx, event: Evt) => Ctx;
type AnyFn = (...args: never[]) => unknown;
type Call = (args: { context: Ctx; event: Evt }, params: unknown) => unknown;

interface Candidate {
  guard: UnknownGuard | undefined;
  target: string | undefined;
  /** 1 for the first candidate of its event with this target, 2 for the next, … (what tells guarded twins apart). */
  ordinal: number;
  reenter: boolean;
  actions: Action[];
  effects: string[];
}

interface DelayedEvent {
  eventType: string;
  delay: (ctx: Ctx, event: Evt) => number;
}

interface StateEntry {
  final: boolean;
  on: Map<string, Candidate[]>;
  entry: Action[];
  exit: Action[];
  entryEffects: string[];
  afters: DelayedEvent[];
  /** This state as an xstate snapshot, for guards that read it (stateIn); set once the table is built. */
  snapshot: AnyMachineSnapshot | undefined;
}

/** Delayed events a state's entry arms: xstate's own `after` ones, read from the public `node.after`, and explicit delayed raises. */
interface EntryDelays {
  after: Map<string, DelayedEvent>;
  armed: DelayedEvent[];
}

/** The outcome of one event applied to a (state, context). */
export interface TableStep<C = Ctx> {
  state: string;
  context: C;
  /** Set when the new state waits for a delayed (`after`) event: the soonest one. */
  delayed?: { eventType: string; delay: number };
  /** Names of side-effect actions the machine declared (the queue does not run them). */
  effects: string[];
  /**
   * Set when the event has several candidates with this target and a later
   * one was taken: its place among them (2, 3, …), as `machineGraph` numbers
   * edge ids (`from:event:to#2`). Absent for the first (or only) one.
   */
  candidate?: number;
}

export interface CompiledMachine<C = Ctx> {
  readonly id: string;
  readonly initial: TableStep<C>;
  readonly states: readonly string[];
  readonly finalStates: ReadonlySet<string>;
  /** States that leave on their own after a delay (e.g. `failed`). */
  readonly delayedStates: readonly string[];
  /** Apply an event; `undefined` when the state does not accept it (or no guard passes). */
  next(state: string, context: C, event: { type: string }): TableStep<C> | undefined;
  /** The delayed event due for a state entered with this context (the soonest one). */
  due(state: string, context: C): { eventType: string; delay: number } | undefined;
  /** Event types a state accepts. */
  accepts(state: string): readonly string[];
}

const isFixedEvent = (event: unknown): event is { type: string } =>
  typeof event === 'object' && event !== null && typeof (event as { type?: unknown }).type === 'string';

export function compileMachine<C extends object = Ctx>(machine: AnyStateMachine): CompiledMachine<C> {
  type Named = Record<string, unknown>;
  const { guards = {}, actions = {}, delays = {} } = machine.implementations as { guards?: Named; actions?: Named; delays?: Named };
  const root = machine.root;
  if (root.type !== 'compound') throw new MachineCompileError('the machine must have child states at its root');
  if (root.transitions.size > 0) throw new MachineCompileError('root-level transitions are not supported: declare them on each state');
  if (root.always?.length || root.invoke.length) throw new MachineCompileError('root-level always and invoke are not supported');

  // Unimplemented guards are refused now, not on the first event that reaches them.
  const checkGuard = (guard: unknown, where: string, depth = 0): void => {
    if (guard === undefined) return;
    if (depth > 32) throw new MachineCompileError(`guard in ${where} refers to itself`);
    if (typeof guard === 'function') {
      for (const operand of guardOperands(guard as AnyFn)) checkGuard(operand, where, depth + 1);
      return;
    }
    const name = typeof guard === 'string' ? guard : (guard as { type?: unknown }).type;
    const resolved = typeof name === 'string' ? guards[name] : undefined;
    if (resolved === undefined) throw new MachineCompileError(`guard "${String(name)}" in ${where} is not implemented`);
    checkGuard(resolved, where, depth + 1);
  };

  // Resolved as xstate resolves a raise's delay: a number, or a named delay (number or function).
  const delayOf = (d: unknown) => (context: Ctx, event: Evt): number => {
    const ref = typeof d === 'string' ? delays[d] : d;
    const value = typeof ref === 'function' ? (ref as Call)({ context, event }, undefined) : ref;
    if (typeof value !== 'number') throw new MachineCompileError(`delay "${String(d)}" did not resolve to a number`);
    return value;
  };

  const compileAssign = (action: AnyFn, params: unknown): Action => {
    const assignment = assignmentOf(action);
    return (context, event) => {
      const args = { context, event };
      const p = typeof params === 'function' ? (params as Call)(args, undefined) : params;
      let partial: Ctx;
      if (typeof assignment === 'function') partial = assignment(args, p) as Ctx;
      else {
        partial = {};
        for (const key of Object.keys(assignment)) {
          const v = assignment[key];
          partial[key] = typeof v === 'function' ? (v as Call)(args, p) : v;
        }
      }
      return Object.assign({}, context, partial);
    };
  };

  const compileRaise = (action: AnyFn, where: string, delayed: EntryDelays | null): null => {
    const { event, delay } = raiseOf(action);
    const fixed = isFixedEvent(event) ? event.type : undefined;
    const own = fixed !== undefined && delay !== undefined ? delayed?.after.get(fixed) : undefined;
    // How xstate arms an `after` delay; its delay is the one node.after reports.
    if (own) {
      if (!delayed!.armed.includes(own)) delayed!.armed.push(own);
      return null;
    }
    if (delay === undefined || delayed === null) throw new MachineCompileError(`raise in ${where}: only a delayed raise on entry compiles`);
    if (fixed === undefined) throw new MachineCompileError(`delayed raise in ${where} must raise a fixed event`);
    delayed.armed.push({ eventType: fixed, delay: delayOf(delay) });
    return null;
  };

  const compileAction = (raw: unknown, where: string, effects: string[], delayed: EntryDelays | null): Action | null => {
    let fn: unknown = raw;
    let params: unknown;
    let label = typeof raw === 'string' ? raw : undefined;
    if (typeof raw === 'string' || (typeof raw === 'object' && raw !== null && 'type' in raw)) {
      const type = typeof raw === 'string' ? raw : String((raw as { type: unknown }).type);
      label = type;
      params = typeof raw === 'object' ? (raw as { params?: unknown }).params : undefined;
      fn = actions[type];
      if (fn === undefined) throw new MachineCompileError(`action "${type}" in ${where} is not implemented`);
    }
    if (typeof fn !== 'function') throw new MachineCompileError(`action in ${where} is not a function`);
    const action = fn as AnyFn;
    const type = actionType(action);
    switch (type) {
      case BUILTIN_ACTION.assign:
        return compileAssign(action, params);
      case BUILTIN_ACTION.raise:
        return compileRaise(action, where, delayed);
      case BUILTIN_ACTION.cancel:
        return null; // cancels a delayed event on exit: the queue never armed one.
      case undefined:
        effects.push(label ?? action.name ?? 'anonymous');
        return null;
      default:
        if (type.startsWith(BUILTIN_ACTION_PREFIX) && type !== BUILTIN_ACTION.log && type !== BUILTIN_ACTION.emit) {
          throw new MachineCompileError(`action ${type} in ${where} is not supported by the table`);
        }
        effects.push(type);
        return null;
    }
  };

  const compileActions = (list: readonly unknown[], where: string, effects: string[], delayed: EntryDelays | null) =>
    list.map((a) => compileAction(a, where, effects, delayed)).filter((a): a is Action => a !== null);

  const compileState = (key: string, node: AnyStateNode): StateEntry => {
    if (node.type !== 'atomic' && node.type !== 'final') {
      throw new MachineCompileError(`state "${key}" is ${node.type}: only flat machines compile`);
    }
    if (node.always && node.always.length > 0) throw new MachineCompileError(`state "${key}" has eventless (always) transitions`);
    if (node.invoke.length > 0) throw new MachineCompileError(`state "${key}" invokes actors`);
    const entryEffects: string[] = [];
    const delayed: EntryDelays = { after: new Map(), armed: [] };
    for (const t of node.after) {
      if (!delayed.after.has(t.eventType)) delayed.after.set(t.eventType, { eventType: t.eventType, delay: delayOf(t.delay) });
    }
    const entry = compileActions(node.entry, `${key}.entry`, entryEffects, delayed);
    // Should xstate stop arming `after` through entry raises, node.after still says what is due.
    for (const own of delayed.after.values()) if (!delayed.armed.includes(own)) delayed.armed.push(own);
    const exit = compileActions(node.exit, `${key}.exit`, [], null);
    const on = new Map<string, Candidate[]>();
    for (const [eventType, defs] of node.transitions) {
      if (eventType === '*' || eventType.endsWith('.*')) throw new MachineCompileError(`wildcard event "${eventType}" in "${key}"`);
      const where = `${key} on ${eventType}`;
      on.set(
        eventType,
        defs.map((def): Candidate => {
          const targets = def.target;
          if (targets && targets.length > 1) throw new MachineCompileError(`multiple targets in "${key}"`);
          const target = targets?.[0];
          if (target && target.parent !== root) throw new MachineCompileError(`${where} targets "${target.id}", which is not a state at the root`);
          checkGuard(def.guard, where);
          const effects: string[] = [];
          return {
            guard: def.guard,
            target: target?.key,
            ordinal: 0,
            reenter: def.reenter,
            actions: compileActions(def.actions, where, effects, null),
            effects,
          };
        }),
      );
    }
    for (const candidates of on.values()) {
      const seen = new Map<string, number>();
      for (const c of candidates) {
        const to = c.target ?? key;
        c.ordinal = (seen.get(to) ?? 0) + 1;
        seen.set(to, c.ordinal);
      }
    }
    return { final: node.type === 'final', on, entry, exit, entryEffects, afters: delayed.armed, snapshot: undefined };
  };

  const table = new Map<string, StateEntry>();
  for (const [key, node] of Object.entries(root.states)) table.set(key, compileState(key, node));

  const [initialSnapshot] = initialTransition(machine);
  const initialState = String(initialSnapshot.value);
  const initial: TableStep<C> = { state: initialState, context: initialSnapshot.context as C, effects: [] };
  // One real snapshot per state, made by xstate: what stateIn reads. Guards get the live context as an argument.
  for (const [key, entry] of table) entry.snapshot = machine.resolveState({ value: key, context: initialSnapshot.context });

  const soonest = (entry: StateEntry, context: Ctx, event: Evt) => {
    let best: { eventType: string; delay: number } | undefined;
    for (const after of entry.afters) {
      const delay = after.delay(context, event);
      if (!best || delay < best.delay) best = { eventType: after.eventType, delay };
    }
    return best;
  };

  const next = (state: string, context: C, event: { type: string }): TableStep<C> | undefined => {
    const entry = table.get(state);
    if (!entry || entry.final) return undefined;
    const candidates = entry.on.get(event.type);
    if (!candidates) return undefined;
    const evt = event as Evt;
    let ctx = context as Ctx;
    const snapshot = entry.snapshot!;
    const chosen = candidates.find((c) => c.guard === undefined || evaluateGuard(c.guard, ctx, evt, snapshot));
    if (!chosen) return undefined;
    const target = chosen.target ?? state;
    const leaves = chosen.target !== undefined && (chosen.target !== state || chosen.reenter);
    const effects = [...chosen.effects];
    if (leaves) for (const a of entry.exit) ctx = a(ctx, evt);
    for (const a of chosen.actions) ctx = a(ctx, evt);
    let delayed: { eventType: string; delay: number } | undefined;
    const targetEntry = table.get(target)!;
    if (leaves) {
      for (const a of targetEntry.entry) ctx = a(ctx, evt);
      effects.push(...targetEntry.entryEffects);
      delayed = soonest(targetEntry, ctx, evt);
    }
    const step: TableStep<C> = { state: target, context: ctx as C, effects };
    if (delayed) step.delayed = delayed;
    if (chosen.ordinal > 1) step.candidate = chosen.ordinal;
    return step;
  };

  const states = [...table.keys()];
  return {
    id: machine.id,
    initial,
    states,
    finalStates: new Set(states.filter((s) => table.get(s)!.final)),
    delayedStates: states.filter((s) => table.get(s)!.afters.length > 0),
    next,
    due: (state, context) => {
      const entry = table.get(state);
      return entry ? soonest(entry, context as Ctx, { type: 'xstate.due' }) : undefined;
    },
    accepts: (state) => [...(table.get(state)?.on.keys() ?? [])],
  };
}
