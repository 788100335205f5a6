/**
 * Lays a `MachineGraph` out with elkjs (the layered algorithm): boxes for the
 * states, a dot for the initial marker, orthogonal routes for the edges and a
 * place for each edge label. The result is plain geometry, in the order of
 * the graph, for the SVG writer to draw.
 *
 * elk sees only sizes, never text: boxes are sized from text length with a
 * fixed per-character width, which holds for the monospace font the SVG uses.
 */
import type { ELK, ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import type { DiagramDirection } from './dot.js';
import { ValidationError } from '../errors.js';
import type { MachineGraph } from './machine-graph.js';
import type { Box, DiagramLayout, Point } from './layout-types.js';

export type { Box, DiagramLayout, PlacedEdge, PlacedState, Point } from './layout-types.js';

export const STATE_FONT_SIZE = 13;
export const LABEL_FONT_SIZE = 12;
/** Width of one character as a fraction of the font size (monospace fonts are ≈0.6 em; a little slack). */
const CHAR_EM = 0.62;
const STATE_HEIGHT = 36;
const STATE_MIN_WIDTH = 88;
const STATE_PADDING_X = 18;
const LABEL_PADDING_X = 4;
const LABEL_HEIGHT = 18;
const EDGE_GAP = 7;
export const INITIAL_RADIUS = 6;

/** The width text of this length needs at this size. */
function textWidth(text: string, fontSize: number): number {
  return Math.ceil([...text].length * fontSize * CHAR_EM);
}

let elk: Promise<ELK> | undefined;

/**
 * One elk instance, loaded on first use: the bundle is 1.6 MB and takes a
 * quarter of a second to load, which a queue that never draws should not pay.
 * elkjs is CommonJS whose typings declare `export default`: under NodeNext the
 * imported module's `default` is the constructor (elk sets `ELK.default = ELK`,
 * so this holds in Node and in bundlers alike).
 */
function loadElk(): Promise<ELK> {
  elk ??= import('elkjs/lib/elk.bundled.js').then((mod) => new mod.default.default());
  return elk;
}

/** The most edges that start, or end, at this state (self-loops aside). */
function edgeEnds(graph: MachineGraph, state: string): number {
  const out = graph.edges.filter((e) => e.from === state && e.to !== state).length;
  const into = graph.edges.filter((e) => e.to === state && e.from !== state).length + (graph.initial === state ? 1 : 0);
  return Math.max(out, into);
}

/**
 * A box wide enough for the name, and long enough across the flow for its
 * edges to leave it at least EDGE_GAP apart (elk spreads them evenly along
 * the side), so a busy state's edges stay distinguishable.
 */
function stateSize(name: string, ends: number, direction: DiagramDirection): { width: number; height: number } {
  const across = EDGE_GAP * (ends + 1);
  const width = Math.max(STATE_MIN_WIDTH, textWidth(name, STATE_FONT_SIZE) + 2 * STATE_PADDING_X);
  return direction === 'RIGHT' ? { width, height: Math.max(STATE_HEIGHT, across) } : { width: Math.max(width, across), height: STATE_HEIGHT };
}

const LAYOUT_OPTIONS = {
  'elk.algorithm': 'layered',
  'elk.edgeRouting': 'ORTHOGONAL',
  'elk.edgeLabels.placement': 'CENTER',
  // Keep the machine's own order where elk has a free choice: the same
  // machine always gets the same picture, and pending comes first.
  'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
  'elk.layered.cycleBreaking.strategy': 'MODEL_ORDER',
  'elk.layered.nodePlacement.strategy': 'NETWORK_SIMPLEX',
  'elk.spacing.nodeNode': '36',
  'elk.layered.spacing.nodeNodeBetweenLayers': '48',
  'elk.spacing.edgeEdge': '14',
  'elk.layered.spacing.edgeEdgeBetweenLayers': '14',
  'elk.layered.spacing.edgeNodeBetweenLayers': '18',
  'elk.spacing.edgeNode': '18',
  'elk.spacing.edgeLabel': '4',
  'elk.padding': '[top=20,left=20,bottom=20,right=20]',
} as const;

function pointsOf(edge: ElkExtendedEdge): Point[] {
  const points: Point[] = [];
  for (const section of edge.sections ?? []) {
    points.push(section.startPoint, ...(section.bendPoints ?? []), section.endPoint);
  }
  return points.map(({ x, y }) => ({ x, y }));
}

function boxOf(shape: { x?: number; y?: number; width?: number; height?: number }): Box {
  return { x: shape.x ?? 0, y: shape.y ?? 0, width: shape.width ?? 0, height: shape.height ?? 0 };
}

/**
 * Runs elk on the graph. Elk's own ids are positional (`s0`, `e0`, …), so no
 * state or event name needs escaping for it and none can clash with the
 * initial marker's.
 */
export async function layoutGraph(graph: MachineGraph, direction: DiagramDirection): Promise<DiagramLayout> {
  const index = new Map(graph.states.map((state, i) => [state.id, i]));
  // A graph may come from JSON rather than machineGraph: elk's own error for
  // a dangling edge would not say which state is missing.
  const nodeId = (state: string) => {
    const i = index.get(state);
    if (i === undefined) throw new ValidationError(`the graph names a state it does not list: "${state}"`);
    return `s${i}`;
  };
  const input: ElkNode = {
    id: 'root',
    layoutOptions: { ...LAYOUT_OPTIONS, 'elk.direction': direction },
    children: [
      { id: 'init', width: INITIAL_RADIUS * 2, height: INITIAL_RADIUS * 2 },
      ...graph.states.map((state, i) => {
        const box = stateSize(state.id, edgeEnds(graph, state.id), direction);
        return { id: `s${i}`, ...box };
      }),
    ],
    edges: [
      { id: 'init-edge', sources: ['init'], targets: [nodeId(graph.initial)] },
      ...graph.edges.map((edge, i) => ({
        id: `e${i}`,
        sources: [nodeId(edge.from)],
        targets: [nodeId(edge.to)],
        labels: [{ text: edge.label, layoutOptions: { 'elk.edgeLabels.inline': 'true' }, width: textWidth(edge.label, LABEL_FONT_SIZE) + 2 * LABEL_PADDING_X, height: LABEL_HEIGHT }],
      })),
    ],
  };
  const out = await (await loadElk()).layout(input);
  const nodes = new Map((out.children ?? []).map((node) => [node.id, node]));
  const outEdges = new Map((out.edges ?? []).map((edge) => [edge.id, edge]));
  const init = boxOf(nodes.get('init')!);
  return {
    width: out.width ?? 0,
    height: out.height ?? 0,
    states: graph.states.map((state, i) => ({ state, ...boxOf(nodes.get(`s${i}`)!) })),
    edges: graph.edges.map((edge, i) => {
      const placed = outEdges.get(`e${i}`)!;
      return { edge, points: pointsOf(placed), label: boxOf(placed.labels?.[0] ?? {}) };
    }),
    initial: { center: { x: init.x + init.width / 2, y: init.y + init.height / 2 }, points: pointsOf(outEdges.get('init-edge')!) },
  };
}
