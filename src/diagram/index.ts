/** Statechart diagrams of job machines: the graph model and its renderers. */
export { machineGraph } from './machine-graph.js';
export type { MachineGraph, MachineGraphEdge, MachineGraphState } from './machine-graph.js';
export { renderMermaid } from './mermaid.js';
export { renderDot } from './dot.js';
export type { DiagramDirection, DotOptions } from './dot.js';
export { renderSvg } from './svg.js';
export type { SvgOptions } from './svg.js';
