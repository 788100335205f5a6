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
import { labelLines } from './label-lines.js';
import type { MachineGraph } from './machine-graph.js';
import type { Box, DiagramLayout, Point } from './layout-types.js';

export type { Box, DiagramLayout, PlacedBundle, PlacedEdge, PlacedState, Point } from './layout-types.js';

export const STATE_FONT_SIZE = 13;
export const LABEL_FONT_SIZE = 12;
/** Width of one character as a fraction of the font size (monospace fonts are ≈0.6 em; a little slack). */
const CHAR_EM = 0.62;
const STATE_HEIGHT = 36;
const STATE_MIN_WIDTH = 88;
const STATE_PADDING_X = 18;
const LABEL_PADDING_X = 4;
const LABEL_HEIGHT = 18;
/** A wrapped label's second line. */
const LABEL_LINE = 14;
const EDGE_GAP = 7;
/** The extra height of a box's second line (a count under the name). */
const COUNT_LINE = 10;
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

/**
 * How a page that is not the CLI's SVG wants the picture: the defaults are
 * what `renderSvg` draws (and docs/concepts/lifecycle.svg holds).
 */
export interface LayoutOptions {
  /**
   * Groups of edges (indexes into `graph.edges`) into one state, drawn as one:
   * the members meet at one port on their target and carry one label, on the
   * last member's route (from the state declared last, the nearest to the
   * target as a rule, so the label sits by the shared arrowhead rather than
   * across the picture). Edges in no group are drawn on their own.
   */
  bundles?: readonly (readonly number[])[];
  /** Text lines in a state box: 2 leaves room for a count under the name. Default 1. */
  stateLines?: 1 | 2;
  /** Space along a box side between two edge ends. Default 7; an arrowhead is 9 wide. */
  edgeGap?: number;
  /**
   * Give elk the finished states after the others: a custom machine declares
   * its extra states last, and elk's model order would otherwise put them
   * after `dead` and `cancelled`, at the far end of the picture.
   */
  finalsLast?: boolean;
  /** Break long labels over two lines (`labelLines`), each placed edge saying how: narrower layers, so a wider machine fits. */
  wrapLabels?: boolean;
  /** Tighter spacing between layers and between parallel edges (COMPACT_SPACING), for a picture that must fit a page's width. */
  compact?: boolean;
  /**
   * Leave a line under each label for its edge's rate (the page's live
   * "24/min"): inside the label's box, so the layout keeps it clear of other
   * labels, edges and states as it does the label's text.
   */
  rateLine?: boolean;
}

/** The most edges that start, or end, at this state (self-loops aside; a bundle ends once). */
function edgeEnds(graph: MachineGraph, state: string, bundleOf: ReadonlyMap<number, number>): number {
  const out = graph.edges.filter((e) => e.from === state && e.to !== state).length;
  const ends = new Set<string>();
  graph.edges.forEach((e, i) => {
    if (e.to === state && e.from !== state) ends.add(bundleOf.has(i) ? `b${bundleOf.get(i)}` : `e${i}`);
  });
  return Math.max(out, ends.size + (graph.initial === state ? 1 : 0));
}

/**
 * A box wide enough for the name, and long enough across the flow for its
 * edges to leave it at least EDGE_GAP apart (elk spreads them evenly along
 * the side), so a busy state's edges stay distinguishable.
 */
function stateSize(name: string, ends: number, direction: DiagramDirection, options: LayoutOptions): { width: number; height: number } {
  const across = (options.edgeGap ?? EDGE_GAP) * (ends + 1);
  const width = Math.max(STATE_MIN_WIDTH, textWidth(name, STATE_FONT_SIZE) + 2 * STATE_PADDING_X);
  const height = options.stateLines === 2 ? STATE_HEIGHT + COUNT_LINE : STATE_HEIGHT;
  return direction === 'RIGHT' ? { width, height: Math.max(height, across) } : { width: Math.max(width, across), height };
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

/**
 * Most of a wide picture is the channels between layers where edges turn:
 * parallel runs 8 apart there (10 elsewhere) instead of 14. Measured on the
 * base and quarantine machines, a fifth narrower than LAYOUT_OPTIONS.
 */
const COMPACT_SPACING = {
  'elk.spacing.nodeNode': '28',
  'elk.layered.spacing.nodeNodeBetweenLayers': '22',
  'elk.spacing.edgeEdge': '10',
  'elk.layered.spacing.edgeEdgeBetweenLayers': '8',
  'elk.layered.spacing.edgeNodeBetweenLayers': '10',
  'elk.spacing.edgeNode': '12',
  'elk.padding': '[top=14,left=10,bottom=14,right=10]',
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
export async function layoutGraph(graph: MachineGraph, direction: DiagramDirection, options: LayoutOptions = {}): Promise<DiagramLayout> {
  const index = new Map(graph.states.map((state, i) => [state.id, i]));
  // A graph may come from JSON rather than machineGraph: elk's own error for
  // a dangling edge would not say which state is missing.
  const nodeId = (state: string) => {
    const i = index.get(state);
    if (i === undefined) throw new ValidationError(`the graph names a state it does not list: "${state}"`);
    return `s${i}`;
  };
  const bundles = checkedBundles(graph, options.bundles ?? []);
  const bundleOf = new Map(bundles.flatMap((members, b) => members.map((i) => [i, b] as const)));
  const order = graph.states.map((state, i) => ({ state, i }));
  if (options.finalsLast) order.sort((a, b) => Number(a.state.final) - Number(b.state.final) || a.i - b.i);
  const linesOf = (edge: MachineGraph['edges'][number]) => (options.wrapLabels ? labelLines(edge) : [edge.label]);
  const label = (edge: MachineGraph['edges'][number]) => {
    const lines = linesOf(edge);
    const width = Math.max(...lines.map((line) => textWidth(line, LABEL_FONT_SIZE))) + 2 * LABEL_PADDING_X;
    const height = LABEL_HEIGHT + (lines.length - 1) * LABEL_LINE + (options.rateLine ? LABEL_LINE : 0);
    return { text: edge.label, layoutOptions: { 'elk.edgeLabels.inline': 'true' }, width, height };
  };
  const input: ElkNode = {
    id: 'root',
    layoutOptions: {
      ...LAYOUT_OPTIONS,
      'elk.direction': direction,
      ...(options.compact ? COMPACT_SPACING : {}),
    },
    children: [
      { id: 'init', width: INITIAL_RADIUS * 2, height: INITIAL_RADIUS * 2 },
      ...order.map(({ state, i }) => {
        const box = stateSize(state.id, edgeEnds(graph, state.id, bundleOf), direction, options);
        // A bundle's members all end on one port: elk joins them before it.
        const ports = bundles.filter((members) => graph.edges[members[0]!]!.to === state.id).map((members) => ({ id: `p${bundleOf.get(members[0]!)}`, width: 0, height: 0 }));
        // elk places the ends of edges with no port of their own too (a back edge leaves by the side others enter): spaced, and the box grown if need be.
        const spread =
          options.edgeGap === undefined
            ? {}
            : { layoutOptions: { 'elk.nodeSize.constraints': 'PORTS MINIMUM_SIZE', 'elk.nodeSize.minimum': `(${box.width}, ${box.height})`, 'elk.spacing.portPort': String(options.edgeGap) } };
        const loops = { 'elk.layered.edgeRouting.selfLoopDistribution': 'NORTH_SOUTH' };
        const opts = { layoutOptions: { ...(spread.layoutOptions ?? {}), ...loops } };
        return { id: `s${i}`, ...box, ...(ports.length > 0 ? { ports } : {}), ...opts };
      }),
    ],
    edges: [
      { id: 'init-edge', sources: ['init'], targets: [nodeId(graph.initial)] },
      ...graph.edges.map((edge, i) => {
        const b = bundleOf.get(i);
        const labelled = b === undefined || bundles[b]!.at(-1) === i;
        return { id: `e${i}`, sources: [nodeId(edge.from)], targets: [b === undefined ? nodeId(edge.to) : `p${b}`], labels: labelled ? [label(edge)] : [] };
      }),
    ],
  };
  const out = await (await loadElk()).layout(input);
  const nodes = new Map((out.children ?? []).map((node) => [node.id, node]));
  const outEdges = new Map((out.edges ?? []).map((edge) => [edge.id, edge]));
  const init = boxOf(nodes.get('init')!);
  const labelOf = (i: number) => boxOf(outEdges.get(`e${i}`)!.labels?.[0] ?? {});
  const layout: DiagramLayout = {
    width: out.width ?? 0,
    height: out.height ?? 0,
    states: graph.states.map((state, i) => ({ state, ...boxOf(nodes.get(`s${i}`)!) })),
    edges: graph.edges.map((edge, i) => {
      const placed = outEdges.get(`e${i}`)!;
      const b = bundleOf.get(i);
      const lines = options.wrapLabels ? { lines: linesOf(edge) } : {};
      if (b === undefined) return { edge, points: pointsOf(placed), label: labelOf(i), ...lines };
      return { edge, points: pointsOf(placed), label: labelOf(bundles[b]!.at(-1)!), bundle: b, ...lines };
    }),
    initial: { center: { x: init.x + init.width / 2, y: init.y + init.height / 2 }, points: pointsOf(outEdges.get('init-edge')!) },
  };
  if (bundles.length > 0) {
    layout.bundles = bundles.map((members) => {
      const junctions = new Map<string, Point>();
      for (const i of members) for (const p of outEdges.get(`e${i}`)!.junctionPoints ?? []) junctions.set(`${p.x},${p.y}`, { x: p.x, y: p.y });
      return { edges: members.map((i) => graph.edges[i]!.id), label: labelOf(members.at(-1)!), junctions: [...junctions.values()] };
    });
  }
  return layout;
}

/**
 * The bundles as given, refused when elk could not draw them as one: an
 * unknown edge, an edge in two bundles, members into different states or
 * a self-loop (a loop has no side of its own to meet on).
 */
function checkedBundles(graph: MachineGraph, bundles: readonly (readonly number[])[]): number[][] {
  const seen = new Set<number>();
  return bundles.map((members) => {
    const to = graph.edges[members[0] ?? -1]?.to;
    for (const i of members) {
      const edge = graph.edges[i];
      if (edge === undefined || seen.has(i) || edge.to !== to || edge.from === edge.to) {
        throw new ValidationError(`edge bundle [${members.join(', ')}] must join distinct edges of the graph into one state, none a self-loop`);
      }
      seen.add(i);
    }
    return [...members];
  });
}
