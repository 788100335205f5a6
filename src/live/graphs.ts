/**
 * The statecharts the dashboard draws: one per distinct job machine among
 * the queue's definitions. Jobs on the base machine (and names this process
 * does not define, enqueued by others) share the first; a job with a machine
 * of its own (the quarantine example) gets its own chart, found from the
 * machine itself with no extra code. Laid out once, both ways, with elkjs,
 * tighter than `litejobs diagram` draws it: the page must fit a custom
 * machine into a laptop's width with its text at 12 px or more.
 */
import type { AnyStateMachine } from 'xstate';
import { createJobMachine } from '../../machines/job.machine.js';
import { machineGraph, type MachineGraph } from '../diagram/machine-graph.js';
import type { DiagramLayout, LayoutOptions } from '../diagram/svg-layout.js';
import type { AnyJobDefinition } from '../engine/core/job-definition.js';
import type { Logger } from '../lib/logger.js';
import { layoutOffThread } from './layout-off-thread.js';

export interface DashboardGraph {
  /** `job` for the base machine; otherwise the machine's id, or its first job's name (made unique). */
  id: string;
  /** The job names drawn on this chart; null: every name no other chart lists. */
  names: string[] | null;
  graph: MachineGraph;
  /** null: elk failed or ran over its budget on this machine; the page lists its states instead. */
  layouts: { RIGHT: DiagramLayout | null; DOWN: DiagramLayout | null };
}

function machineOf(definition: AnyJobDefinition): AnyStateMachine {
  const { machine, retry } = definition as { machine?: AnyStateMachine | ((policy: unknown) => AnyStateMachine); retry?: unknown };
  if (machine === undefined) return createJobMachine(retry as Parameters<typeof createJobMachine>[0]);
  return typeof machine === 'function' ? machine(retry) : machine;
}

/** The graphs without layout: grouped by shape, the base machine's group first. */
export function groupGraphs(definitions: ReadonlyMap<string, AnyJobDefinition>): Array<Omit<DashboardGraph, 'layouts'>> {
  const base = machineGraph(createJobMachine());
  const groups = new Map<string, { id: string; names: string[] | null; graph: MachineGraph }>();
  groups.set(JSON.stringify(base), { id: 'job', names: null, graph: base });
  const ids = new Set(['job']);
  for (const [name, definition] of definitions) {
    const machine = machineOf(definition);
    const graph = machineGraph(machine);
    const shape = JSON.stringify(graph);
    const group = groups.get(shape);
    if (group) {
      group.names?.push(name);
      continue;
    }
    // Machines built on the base one keep its id: name the chart after its first job then.
    const wanted = machine.id && machine.id !== 'job' ? machine.id : name;
    let id = wanted;
    for (let n = 2; ids.has(id); n++) id = `${wanted}-${n}`;
    ids.add(id);
    groups.set(shape, { id, names: [name], graph });
  }
  return [...groups.values()];
}

/**
 * The edges drawn as one on the page: those that take the same event (same
 * label, guard and all) into the same state from different states. Every
 * busy state has a `job.cancel` into `cancelled`, and `job.rerun` and
 * `job.promote` lead back to `pending` from several: one labelled arrow each
 * instead of a stack of arrowheads with the same label. Indexes into
 * `graph.edges`, in graph order; groups of one are left out.
 */
export function edgeBundles(graph: MachineGraph): number[][] {
  const groups = new Map<string, number[]>();
  graph.edges.forEach((edge, i) => {
    if (edge.from === edge.to) return;
    const key = JSON.stringify([edge.to, edge.label]);
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  return [...groups.values()].filter((members) => members.length > 1);
}

/** How the page wants its charts laid out (see LayoutOptions). */
export function dashboardLayoutOptions(graph: MachineGraph): LayoutOptions {
  // An edge gap over the arrowhead's width (9): arrowheads side by side, never on top of each other.
  return { bundles: edgeBundles(graph), stateLines: 2, edgeGap: 12, finalsLast: true, wrapLabels: true, compact: true, rateLine: true };
}

/**
 * Every chart with its layouts, each laid out by elk in a thread of its own
 * (about 100 ms per graph, once), so a machine elk takes seconds over (a
 * long ring of states) stalls no request; one over the budget, or one elk
 * fails on, has no layout and a warning in the log.
 */
export async function dashboardGraphs(definitions: ReadonlyMap<string, AnyJobDefinition>, logger?: Logger, budgetMs?: number): Promise<DashboardGraph[]> {
  return Promise.all(
    groupGraphs(definitions).map(async (g) => {
      const outcome = await layoutOffThread(g.graph, dashboardLayoutOptions(g.graph), budgetMs);
      if (outcome.layouts) return { ...g, layouts: outcome.layouts };
      logger?.warn({ chart: g.id, reason: outcome.reason }, 'dashboard: no statechart layout for this machine; the page lists its states');
      return { ...g, layouts: { RIGHT: null, DOWN: null } };
    }),
  );
}
