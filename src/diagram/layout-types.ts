/** A laid-out statechart as plain geometry: what svg-layout.ts computes and the SVG writer (and the dashboard page) draw. */
import type { MachineGraphEdge, MachineGraphState } from './machine-graph.js';

export interface Point {
  x: number;
  y: number;
}
export interface Box extends Point {
  width: number;
  height: number;
}
export interface PlacedState extends Box {
  state: MachineGraphState;
}
export interface PlacedEdge {
  edge: MachineGraphEdge;
  /** Start, bends, end (the end touches the target's border). */
  points: Point[];
  label: Box;
  /** Its index in `DiagramLayout.bundles`, when it is drawn as part of one (`label` is then the bundle's). */
  bundle?: number;
  /** The label's text lines, when the layout wrapped labels (`LayoutOptions.wrapLabels`). */
  lines?: string[];
}
/** Edges into one state drawn as one: they meet before their target, with one arrowhead and one label. */
export interface PlacedBundle {
  /** The members' edge ids, in graph order. */
  edges: string[];
  label: Box;
  /** Where the members' routes join. */
  junctions: Point[];
}
export interface DiagramLayout {
  width: number;
  height: number;
  states: PlacedState[];
  edges: PlacedEdge[];
  initial: { center: Point; points: Point[] };
  /** Present when the layout was asked for bundles (`LayoutOptions.bundles`). */
  bundles?: PlacedBundle[];
}
