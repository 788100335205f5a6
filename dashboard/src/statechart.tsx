/**
 * One job machine drawn from the server's layout geometry: states are
 * buttons showing their live counts, edges show their recent rate and pulse
 * while jobs take them, and a job's path (and the replay marker) can be laid
 * over it with classes. Edges of one event into one state (every
 * `job.cancel`) arrive as a bundle: each keeps its own line, they share one
 * arrowhead, one label and the sum of their rates.
 */
import type { JSX } from 'preact';
import { count, rate } from './format';
import { edgeKey } from './live';
import { routePaths } from '../../src/diagram/route-paths.js';
import type { Box, DashboardGraph, DiagramLayout, GraphEdge, PlacedBundle } from './types';

export interface PathHighlight {
  states: Set<string>;
  edges: Set<string>;
  /** The replay marker: the state reached and the edge just taken (or its indistinguishable guarded siblings). */
  markerState?: string | undefined;
  markerEdges?: string[] | undefined;
}

interface Props {
  graph: DashboardGraph;
  layout: DiagramLayout;
  counts: Record<string, number>;
  rates: Map<string, number>;
  pulsing: Set<string>;
  selected: string | undefined;
  path: PathHighlight | undefined;
  onSelect(state: string): void;
}

/** The chart never grows past this: text stays near the size the layout was made for. */
const MAX_SCALE = 1.15;
/** A label's first baseline below its box's top, and the step to the next line (the layout's LABEL_HEIGHT and LABEL_LINE). */
const LABEL_BASELINE = 13.2;
const LABEL_LINE = 14;
/** The last line's baseline above its box's bottom (LABEL_HEIGHT 18 less LABEL_BASELINE). */
const LABEL_DESCENT = 4.8;

function labelText(edge: GraphEdge): JSX.Element {
  const suffix = edge.guard !== undefined ? ` [${edge.guard}]` : edge.else ? ' [else]' : '';
  if (suffix === '' || !edge.label.endsWith(suffix)) return <>{edge.label}</>;
  return (
    <>
      {edge.label.slice(0, edge.label.length - suffix.length)} <tspan class="guard">{suffix.trim()}</tspan>
    </>
  );
}

/** The label in its box: on the lines the layout sized it for, a `[guard]` line coloured apart. */
function Label({ edge, lines, box, perSecond }: { edge: GraphEdge; lines: string[] | undefined; box: Box; perSecond: number }) {
  const x = box.x + box.width / 2;
  return (
    <>
      <rect class="label-bg" x={box.x - 2} y={box.y} width={box.width + 4} height={box.height} rx={3} />
      {lines && lines.length > 1 ? (
        lines.map((line, i) => (
          <text key={line} class={classes('label', i > 0 && line.startsWith('[') && 'guard')} x={x} y={box.y + LABEL_BASELINE + i * LABEL_LINE} text-anchor="middle">
            {line}
          </text>
        ))
      ) : (
        <text class="label" x={x} y={box.y + LABEL_BASELINE} text-anchor="middle">
          {labelText(edge)}
        </text>
      )}
      {/* On the line the layout left under the label (LayoutOptions rateLine): never on another label or edge. */}
      <text class="rate" x={x} y={box.y + box.height - LABEL_DESCENT} text-anchor="middle" data-rate>
        {perSecond > 0 ? rate(perSecond) : ''}
      </text>
    </>
  );
}

function classes(...names: (string | false | undefined)[]): string {
  return names.filter(Boolean).join(' ');
}

export function Statechart({ graph, layout, counts, rates, pulsing, selected, path, onSelect }: Props) {
  const initial = routePaths(layout.initial.points);
  const rateOf = (edgeId: string) => rates.get(edgeKey(graph.id, edgeId)) ?? 0;
  const onKey = (state: string) => (event: KeyboardEvent) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      onSelect(state);
    }
  };
  return (
    <svg
      class="statechart"
      viewBox={`0 0 ${layout.width} ${layout.height}`}
      style={{ maxWidth: `${Math.round(layout.width * MAX_SCALE)}px` }}
      aria-labelledby={`chart-${graph.id}`}
    >
      <title id={`chart-${graph.id}`}>{`${graph.id} state machine`}</title>
      <g class="initial">
        <circle cx={layout.initial.center.x} cy={layout.initial.center.y} r={6} />
        <path class="line" d={initial.line} />
        <path class="arrow" d={initial.arrow} />
      </g>
      {layout.edges.map(({ edge, points, label, bundle, lines }) => {
        const route = routePaths(points);
        const key = edgeKey(graph.id, edge.id);
        const perSecond = rateOf(edge.id);
        const cls = classes(
          'edge',
          pulsing.has(key) && 'pulse',
          perSecond > 0 && 'busy',
          path?.edges.has(edge.id) && 'on-path',
          path?.markerEdges?.includes(edge.id) && 'marker',
        );
        return (
          <g key={edge.id} class={cls} data-edge={edge.id}>
            <title>{`${edge.label}${bundle === undefined ? '' : ` from ${edge.from}`}: ${rate(perSecond)} over the last 5 minutes`}</title>
            <path class="line" d={route.line} />
            {bundle === undefined && (
              <>
                <path class="arrow" d={route.arrow} />
                <Label edge={edge} lines={lines} box={label} perSecond={perSecond} />
              </>
            )}
          </g>
        );
      })}
      {layout.bundles?.map((bundle, b) => (
        <Bundle key={bundle.edges.join(' ')} bundle={bundle} layout={layout} index={b} graphId={graph.id} rateOf={rateOf} pulsing={pulsing} path={path} />
      ))}
      {layout.states.map((placed) => {
        const { state } = placed;
        const n = counts[state.id] ?? 0;
        const cls = classes(
          'state',
          `s-${state.id}`,
          state.final && 'final',
          selected === state.id && 'selected',
          path?.states.has(state.id) && 'on-path',
          path?.markerState === state.id && 'marker',
        );
        const cx = placed.x + placed.width / 2;
        const cy = placed.y + placed.height / 2;
        return (
          // biome-ignore lint/a11y/useSemanticElements: inside an SVG only a group can hold the box and its text
          <g
            key={state.id}
            class={cls}
            data-state={state.id}
            role="button"
            tabindex={0}
            aria-pressed={selected === state.id}
            aria-label={`${state.id}: ${n} job${n === 1 ? '' : 's'}`}
            onClick={() => onSelect(state.id)}
            onKeyDown={onKey(state.id)}
          >
            <rect class="box" x={placed.x} y={placed.y} width={placed.width} height={placed.height} rx={10} />
            {state.final && <rect class="inner" x={placed.x + 3.5} y={placed.y + 3.5} width={placed.width - 7} height={placed.height - 7} rx={7} />}
            <text class="name" x={cx} y={cy - 4} text-anchor="middle">
              {state.id}
            </text>
            <text class="count" x={cx} y={cy + 13} text-anchor="middle" data-count={n}>
              {count(n)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

interface BundleProps {
  bundle: PlacedBundle;
  layout: DiagramLayout;
  index: number;
  graphId: string;
  rateOf(edgeId: string): number;
  pulsing: Set<string>;
  path: PathHighlight | undefined;
}

/** A bundle's shared parts: the arrowhead where its members meet their target, the dots where they join, its label and summed rate. */
function Bundle({ bundle, layout, index, graphId, rateOf, pulsing, path }: BundleProps) {
  const members = layout.edges.filter((placed) => placed.bundle === index);
  const first = members[0];
  if (!first) return null;
  const perSecond = members.reduce((sum, m) => sum + rateOf(m.edge.id), 0);
  const any = (test: (id: string) => boolean | undefined) => members.some((m) => test(m.edge.id));
  const cls = classes(
    'edge',
    'bundle',
    any((id) => pulsing.has(edgeKey(graphId, id))) && 'pulse',
    perSecond > 0 && 'busy',
    any((id) => path?.edges.has(id)) && 'on-path',
    any((id) => path?.markerEdges?.includes(id)) && 'marker',
  );
  return (
    <g class={cls} data-bundle={bundle.edges.join(' ')}>
      <title>{`${first.edge.label} into ${first.edge.to}, from ${members.map((m) => m.edge.from).join(', ')}: ${rate(perSecond)} over the last 5 minutes`}</title>
      <path class="arrow" d={routePaths(first.points).arrow} />
      {bundle.junctions.map((p) => (
        <circle key={`${p.x},${p.y}`} class="junction" cx={p.x} cy={p.y} r={2.5} />
      ))}
      <Label edge={first.edge} lines={first.lines} box={bundle.label} perSecond={perSecond} />
    </g>
  );
}
