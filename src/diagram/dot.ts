/**
 * A `MachineGraph` as Graphviz DOT, for `dot -Tsvg` / `-Tpng` and the tools
 * that read it. Every id and label is quoted, so any state or event name is
 * safe.
 */
import type { MachineGraph } from './machine-graph.js';

/** Which way the diagram flows: states left to right, or top to bottom. */
export type DiagramDirection = 'RIGHT' | 'DOWN';

export interface DotOptions {
  /** Default `'RIGHT'` (`rankdir=LR`). */
  direction?: DiagramDirection;
}

/** A DOT double-quoted string. */
function quote(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r?\n/g, '\\n')}"`;
}

/** An id for the initial marker that no state has. */
function initialNodeId(graph: MachineGraph): string {
  const names = new Set(graph.states.map((s) => s.id));
  let id = '__initial__';
  while (names.has(id)) id += '_';
  return id;
}

/**
 * Renders the graph as a DOT `digraph`: states as rounded boxes, final states
 * as double circles, a point node with an arrow into the initial state, and
 * one labelled edge per `MachineGraphEdge` (its DOT `id` is the edge id).
 *
 * @example
 * import { writeFileSync } from 'node:fs';
 * import { createJobMachine, machineGraph, renderDot } from 'litejobs';
 * writeFileSync('lifecycle.dot', renderDot(machineGraph(createJobMachine())));
 * // then: dot -Tpng lifecycle.dot -o lifecycle.png
 */
export function renderDot(graph: MachineGraph, options: DotOptions = {}): string {
  const start = quote(initialNodeId(graph));
  const lines = [
    'digraph "machine" {',
    `  rankdir=${options.direction === 'DOWN' ? 'TB' : 'LR'};`,
    '  node [shape=box, style=rounded, fontname="Helvetica"];',
    '  edge [fontname="Helvetica", fontsize=10];',
    `  ${start} [shape=point, width=0.15, label=""];`,
  ];
  for (const state of graph.states) {
    lines.push(state.final ? `  ${quote(state.id)} [shape=doublecircle];` : `  ${quote(state.id)};`);
  }
  lines.push(`  ${start} -> ${quote(graph.initial)};`);
  for (const edge of graph.edges) {
    lines.push(`  ${quote(edge.from)} -> ${quote(edge.to)} [id=${quote(edge.id)}, label=${quote(edge.label)}];`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
