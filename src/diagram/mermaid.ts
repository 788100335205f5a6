/**
 * A `MachineGraph` as a Mermaid `stateDiagram-v2`, the form
 * docs/concepts/lifecycle.md embeds (GitHub renders it in place).
 */
import type { MachineGraph } from './machine-graph.js';

/**
 * Renders the graph as Mermaid: the initial arrow, one line per edge labelled
 * with `edge.label`, and an arrow out of each final state.
 *
 * @example
 * import { createJobMachine, machineGraph, renderMermaid } from 'litejobs';
 * renderMermaid(machineGraph(createJobMachine()));
 * // stateDiagram-v2
 * //     [*] --> pending
 * //     pending --> processing : job.claim
 * //     …
 */
export function renderMermaid(graph: MachineGraph): string {
  const lines = ['stateDiagram-v2', `    [*] --> ${graph.initial}`];
  for (const edge of graph.edges) lines.push(`    ${edge.from} --> ${edge.to} : ${edge.label}`);
  for (const state of graph.states) if (state.final) lines.push(`    ${state.id} --> [*]`);
  return `${lines.join('\n')}\n`;
}
