/**
 * An edge label broken over two lines where it is long: the event above its
 * `[guard]`, `after` above the delay's name. Pure and free of Node: the
 * layout sizes label boxes with it and the dashboard page draws the same
 * lines, so the text always fits the box elk left for it.
 */
import type { MachineGraphEdge } from './machine-graph.js';

/** Labels up to this many characters stay on one line. */
const ONE_LINE = 14;

/** The label's lines: one, or two when it is long and has a place to break. */
export function labelLines(edge: Pick<MachineGraphEdge, 'label' | 'guard' | 'else'>): string[] {
  const { label } = edge;
  if ([...label].length <= ONE_LINE) return [label];
  const suffix = edge.guard !== undefined ? ` [${edge.guard}]` : edge.else ? ' [else]' : '';
  if (suffix !== '' && label.endsWith(suffix)) return [label.slice(0, label.length - suffix.length), suffix.trimStart()];
  if (label.startsWith('after ')) return ['after', label.slice('after '.length)];
  return [label];
}
