/**
 * The statecharts the dashboard draws: one per distinct job machine among
 * the queue's definitions. Jobs on the base machine (and names this process
 * does not define, enqueued by others) share the first; a job with a machine
 * of its own (the quarantine example) gets its own chart, found from the
 * machine itself with no extra code. Laid out once, both ways, with elkjs.
 */
import type { AnyStateMachine } from 'xstate';
import { createJobMachine } from '../../machines/job.machine.js';
import { machineGraph, type MachineGraph } from '../diagram/machine-graph.js';
import { layoutGraph, type DiagramLayout } from '../diagram/svg-layout.js';
import type { AnyJobDefinition } from '../engine/job-definition.js';

export interface DashboardGraph {
  /** `job` for the base machine; otherwise the machine's id, or its first job's name (made unique). */
  id: string;
  /** The job names drawn on this chart; null: every name no other chart lists. */
  names: string[] | null;
  graph: MachineGraph;
  layouts: { RIGHT: DiagramLayout; DOWN: DiagramLayout };
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

/** Every chart with its layouts (elk runs here: about 100 ms per graph, once). */
export async function dashboardGraphs(definitions: ReadonlyMap<string, AnyJobDefinition>): Promise<DashboardGraph[]> {
  return Promise.all(
    groupGraphs(definitions).map(async (g) => {
      const [RIGHT, DOWN] = await Promise.all([layoutGraph(g.graph, 'RIGHT'), layoutGraph(g.graph, 'DOWN')]);
      return { ...g, layouts: { RIGHT, DOWN } };
    }),
  );
}
