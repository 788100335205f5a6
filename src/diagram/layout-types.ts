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
}
export interface DiagramLayout {
  width: number;
  height: number;
  states: PlacedState[];
  edges: PlacedEdge[];
  initial: { center: Point; points: Point[] };
}
