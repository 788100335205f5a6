/**
 * A job machine as plain data: its states and labelled edges, in the order
 * the machine declares them. Every renderer (Mermaid, DOT, SVG) draws this
 * model, and so will the dashboard: it is serialisable (JSON in, JSON out)
 * and its shape is part of the public API.
 */
import type { AnyStateMachine } from 'xstate';
import { toDirectedGraph } from 'xstate/graph';
import { eventName } from '../../machines/event-name.js';
import { FINISHED_STATES } from '../../machines/job.machine.js';
import { ValidationError } from '../errors.js';

/** One state of the machine. */
export interface MachineGraphState {
  /** The state's name (its key at the machine's root), e.g. `'pending'`. */
  id: string;
  /**
   * A finished state: no job leaves it on its own. A `type: 'final'` state, or
   * one of litejobs' finished states (completed, dead, cancelled), which only
   * a caller's event leaves (`job.retry`, `job.rerun`).
   */
  final: boolean;
  /** The state has an `after` edge: the scheduler will move a job out of it on its own. */
  delayed: boolean;
}

/** One transition candidate: an event (or delay) that can take `from` to `to`. */
export interface MachineGraphEdge {
  /**
   * Stable and unique within the graph: `${from}:${shown event}:${to}`, the
   * event as the history shows it (`failed:after retryDelay:pending`), and for the
   * second and later candidates with the same three parts, `#2`, `#3`, … in
   * the machine's order.
   */
  id: string;
  from: string;
  to: string;
  /** The event type as the machine sees it (`job.fail`, `xstate.after.retryDelay.job.failed`). */
  event: string;
  /**
   * The text to draw: the event type, or `after <delay>` for a delayed edge,
   * then ` [guard]` for a guarded candidate or ` [else]` for the unguarded
   * fallback after guarded ones for the same event.
   */
  label: string;
  /** The guard's name, when the candidate has one. */
  guard?: string;
  /** The unguarded candidate taken when the guarded ones before it for the same event all fail. */
  else?: boolean;
}

/** A flat machine as data: see `machineGraph`. */
export interface MachineGraph {
  /** The state a new job starts in. */
  initial: string;
  /** In the machine's declaration order. */
  states: MachineGraphState[];
  /** Per source state in `states` order, then in the order the machine tries them. */
  edges: MachineGraphEdge[];
}

/** A guard as xstate stores it on a transition: a name, `{ type, params }`, or a function. */
function guardName(guard: unknown): string | undefined {
  if (guard === undefined || guard === null) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') return guard.name || 'inline guard';
  if (typeof guard === 'object' && 'type' in guard) return String((guard as { type: unknown }).type);
  return 'guard';
}

/** Hands out `base`, then `base#2`, `base#3`, … so that no id repeats. */
function uniqueIds(): (base: string) => string {
  const taken = new Set<string>();
  return (base) => {
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}#${n}`;
    taken.add(id);
    return id;
  };
}

/**
 * Reads a flat machine (atomic and final states at its root, which is all the
 * queue runs) into a `MachineGraph`. Throws a `ValidationError`
 * (`LJ_ERR_VALIDATION`) for a machine it cannot draw faithfully: nested or
 * parallel states, transitions declared on the root, no initial state.
 *
 * @example
 * import { createJobMachine, machineGraph } from 'litejobs';
 * const graph = machineGraph(createJobMachine());
 * graph.initial; // 'pending'
 * graph.edges[0]; // { id: 'pending:job.claim:processing', from: 'pending', to: 'processing', event: 'job.claim', label: 'job.claim' }
 */
export function machineGraph(machine: AnyStateMachine): MachineGraph {
  const root = toDirectedGraph(machine);
  if (root.edges.length > 0) {
    throw new ValidationError(`machine "${machine.id}" has transitions on its root: only per-state transitions are drawn`);
  }
  const initial = machine.root.initial?.target?.[0]?.key;
  if (initial === undefined) throw new ValidationError(`machine "${machine.id}" has no initial state to draw`);
  const nextId = uniqueIds();
  const states: MachineGraphState[] = [];
  const edges: MachineGraphEdge[] = [];
  for (const node of root.children) {
    const from = node.stateNode.key;
    if (node.children.length > 0 || node.stateNode.type === 'parallel') {
      throw new ValidationError(`state "${from}" has child states: only flat machines are drawn`);
    }
    const guardedSoFar = new Set<string>();
    let delayed = false;
    for (const edge of node.edges) {
      const event = edge.transition.eventType;
      const to = edge.target.key;
      // The id names the event as the history and watch() show it (`after retryDelay`): a transition finds its edge by it.
      const shown = eventName(event, from);
      const drawn: MachineGraphEdge = { id: nextId(`${from}:${shown}:${to}`), from, to, event, label: shown };
      const guard = guardName(edge.transition.guard);
      if (guard !== undefined) {
        drawn.guard = guard;
        drawn.label += ` [${guard}]`;
        guardedSoFar.add(event);
      } else if (guardedSoFar.has(event)) {
        drawn.else = true;
        drawn.label += ' [else]';
      }
      if (shown !== event) delayed = true;
      edges.push(drawn);
    }
    states.push({ id: from, final: node.stateNode.type === 'final' || FINISHED_STATES.includes(from), delayed });
  }
  return { initial, states, edges };
}
