/**
 * Compiles a flat XState machine into a transition table for the hot path.
 *
 * xstate's pure `transition()` builds a throwaway actor scope per call (~29 µs
 * here); the table looks up (state, event type), evaluates the same guard
 * functions and applies the same `assign` functions, in the same order
 * (exit → transition → entry), without that scope. A property test drives
 * random event sequences through both and demands identical results, so the
 * machine stays the single source of truth.
 *
 * Supported: atomic and final states at the root, guards (named, inline,
 * parameterised, and/or/not), `assign`, `after` delays (reported, not armed:
 * the queue persists `run_at` and delivers the event itself). Anything else
 * (nested states, `always`, invoke, raise/sendTo/enqueueActions) is refused at
 * compile time, so a machine the table cannot mirror never reaches a queue.
 *
 * Pure: imports xstate only.
 */
import { initialTransition, matchesState, type AnyStateMachine } from 'xstate';

type Ctx = Record<string, unknown>;
type Evt = { type: string } & Record<string, unknown>;
type Action = (ctx: Ctx, event: Evt) => Ctx;

interface Candidate {
  guard: unknown;
  target: string | undefined;
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
}

/** The outcome of one event applied to a (state, context). */
export interface TableStep<C = Ctx> {
  state: string;
  context: C;
  /** Set when the new state waits for a delayed (`after`) event: the soonest one. */
  delayed?: { eventType: string; delay: number };
  /** Names of side-effect actions the machine declared (the queue does not run them). */
  effects: string[];
}

/** A machine the queue cannot use. Same code as the queue's machine errors. */
export class MachineCompileError extends TypeError {
  override name = 'MachineCompileError';
  readonly code = 'LJ_ERR_MACHINE';
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

type AnyFn = ((...args: unknown[]) => unknown) & Record<string, unknown>;

export function compileMachine<C extends object = Ctx>(machine: AnyStateMachine): CompiledMachine<C> {
  const impl = machine.implementations as {
    guards: Record<string, unknown>;
    actions: Record<string, unknown>;
    delays: Record<string, unknown>;
  };
  const root = machine.root;
  if (root.type !== 'compound') throw new MachineCompileError('the machine must have child states at its root');
  if ((root.transitions as Map<string, unknown[]>).size > 0) {
    throw new MachineCompileError('root-level transitions are not supported: declare them on each state');
  }

  const evaluateGuard = (guard: unknown, context: Ctx, event: Evt, state: string): boolean => {
    if (guard === undefined) return true;
    const isInline = typeof guard === 'function';
    const name = typeof guard === 'string' ? guard : (guard as { type?: string }).type;
    const resolved = (isInline ? guard : impl.guards[name as string]) as AnyFn | undefined;
    if (!resolved) throw new MachineCompileError(`guard "${String(name)}" is not implemented`);
    if (typeof resolved !== 'function') return evaluateGuard(resolved, context, event, state);
    const params =
      isInline || typeof guard === 'string'
        ? undefined
        : typeof (guard as { params?: unknown }).params === 'function'
          ? ((guard as { params: AnyFn }).params({ context, event }) as unknown)
          : (guard as { params?: unknown }).params;
    if (typeof resolved.check === 'function') {
      // xstate's and/or/not/stateIn: they read this snapshot (flat machine: root + one state).
      const snapshot = {
        machine,
        context,
        value: state,
        matches: (value: unknown) => matchesState(value as string, state),
        _nodes: [root, root.states[state]],
      };
      return Boolean((resolved.check as AnyFn)(snapshot, { context, event }, resolved));
    }
    return Boolean(resolved({ context, event }, params));
  };

  const compileAction = (raw: unknown, where: string, effects: string[], afters: DelayedEvent[] | null): Action | null => {
    let fn: unknown = raw;
    let params: unknown;
    let label = typeof raw === 'string' ? raw : undefined;
    if (typeof raw === 'string' || (typeof raw === 'object' && raw !== null && 'type' in raw)) {
      const type = typeof raw === 'string' ? raw : String((raw as { type: unknown }).type);
      label = type;
      params = typeof raw === 'object' ? (raw as { params?: unknown }).params : undefined;
      fn = impl.actions[type];
      if (fn === undefined) throw new MachineCompileError(`action "${type}" in ${where} is not implemented`);
    }
    if (typeof fn !== 'function') throw new MachineCompileError(`action in ${where} is not a function`);
    const action = fn as AnyFn;
    switch (action.type) {
      case 'xstate.assign': {
        const assignment = action.assignment as AnyFn | Record<string, unknown>;
        return (context, event) => {
          const args = { context, event };
          const p = typeof params === 'function' ? (params as AnyFn)(args) : params;
          let partial: Ctx;
          if (typeof assignment === 'function') partial = assignment(args, p) as Ctx;
          else {
            partial = {};
            for (const key of Object.keys(assignment)) {
              const v = assignment[key];
              partial[key] = typeof v === 'function' ? (v as AnyFn)(args, p) : v;
            }
          }
          return Object.assign({}, context, partial);
        };
      }
      case 'xstate.raise': {
        if (action.delay === undefined || afters === null) {
          throw new MachineCompileError(`raise without a delay in ${where} is not supported`);
        }
        const ev = action.event as { type?: string };
        if (!ev || typeof ev !== 'object' || typeof ev.type !== 'string') {
          throw new MachineCompileError(`delayed raise in ${where} must raise a fixed event`);
        }
        const d = action.delay;
        const delay = (context: Ctx, event: Evt): number => {
          const ref = typeof d === 'string' ? impl.delays[d] : d;
          const value = typeof ref === 'function' ? (ref as AnyFn)({ context, event }, undefined) : ref;
          if (typeof value !== 'number') throw new MachineCompileError(`delay "${String(d)}" did not resolve to a number`);
          return value;
        };
        afters.push({ eventType: ev.type, delay });
        return null;
      }
      case 'xstate.cancel':
        return null; // cancels a delayed event on exit: the queue never armed one.
      case undefined:
        effects.push(label ?? action.name ?? 'anonymous');
        return null;
      default:
        if (String(action.type).startsWith('xstate.') && action.type !== 'xstate.log' && action.type !== 'xstate.emit') {
          throw new MachineCompileError(`action ${String(action.type)} in ${where} is not supported by the table`);
        }
        effects.push(String(action.type));
        return null;
    }
  };

  const compileActions = (list: readonly unknown[], where: string, effects: string[], afters: DelayedEvent[] | null) =>
    list.map((a) => compileAction(a, where, effects, afters)).filter((a): a is Action => a !== null);

  const table = new Map<string, StateEntry>();
  for (const [key, node] of Object.entries(root.states)) {
    if (node.type !== 'atomic' && node.type !== 'final') {
      throw new MachineCompileError(`state "${key}" is ${node.type}: only flat machines compile`);
    }
    if (node.always && node.always.length > 0) throw new MachineCompileError(`state "${key}" has eventless (always) transitions`);
    if (node.invoke.length > 0) throw new MachineCompileError(`state "${key}" invokes actors`);
    const entryEffects: string[] = [];
    const afters: DelayedEvent[] = [];
    const entry = compileActions(node.entry, `${key}.entry`, entryEffects, afters);
    const exit = compileActions(node.exit, `${key}.exit`, [], null);
    const on = new Map<string, Candidate[]>();
    for (const [eventType, defs] of node.transitions as unknown as Map<string, Array<Record<string, unknown>>>) {
      if (eventType === '*' || eventType.endsWith('.*')) throw new MachineCompileError(`wildcard event "${eventType}" in "${key}"`);
      on.set(
        eventType,
        defs.map((def) => {
          const targets = def.target as Array<{ key: string; parent?: unknown }> | undefined;
          if (targets && targets.length > 1) throw new MachineCompileError(`multiple targets in "${key}"`);
          const effects: string[] = [];
          return {
            guard: def.guard,
            target: targets?.[0]?.key,
            reenter: Boolean(def.reenter),
            actions: compileActions((def.actions as unknown[]) ?? [], `${key} on ${eventType}`, effects, null),
            effects,
          };
        }),
      );
    }
    table.set(key, { final: node.type === 'final', on, entry, exit, entryEffects, afters });
  }

  const soonest = (entry: StateEntry, context: Ctx, event: Evt) => {
    let best: { eventType: string; delay: number } | undefined;
    for (const after of entry.afters) {
      const delay = after.delay(context, event);
      if (!best || delay < best.delay) best = { eventType: after.eventType, delay };
    }
    return best;
  };

  const [initialSnapshot] = initialTransition(machine);
  const initialState = String(initialSnapshot.value);
  const initial: TableStep<C> = { state: initialState, context: initialSnapshot.context as C, effects: [] };

  const next = (state: string, context: C, event: { type: string }): TableStep<C> | undefined => {
    const entry = table.get(state);
    if (!entry || entry.final) return undefined;
    const candidates = entry.on.get(event.type);
    if (!candidates) return undefined;
    const evt = event as Evt;
    let ctx = context as Ctx;
    const chosen = candidates.find((c) => evaluateGuard(c.guard, ctx, evt, state));
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
