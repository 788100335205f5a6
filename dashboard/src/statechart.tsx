/**
 * One job machine drawn from the server's layout geometry: states are
 * buttons showing their live counts, edges show their recent rate and pulse
 * while jobs take them, and a job's path (and the replay marker) can be laid
 * over it with classes.
 */
import type { JSX } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { count, rate } from './format';
import { edgeKey } from './live';
import type { DashboardGraph, DiagramLayout, GraphEdge, Point } from './types';

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

const ARROW_LENGTH = 9;
const ARROW_HALF_WIDTH = 4.5;
const CORNER_RADIUS = 6;
/** Below this scale text gets too small to read: the chart scrolls sideways instead. */
const MIN_SCALE = 0.72;

const r1 = (n: number) => Math.round(n * 10) / 10;

function unit(from: Point, to: Point): Point {
  const length = Math.hypot(to.x - from.x, to.y - from.y) || 1;
  return { x: (to.x - from.x) / length, y: (to.y - from.y) / length };
}

/** The route stopped short by the arrowhead, bends rounded, and the arrowhead itself. */
export function routePaths(points: Point[]): { line: string; arrow: string } {
  const end = points[points.length - 1]!;
  const before = points[points.length - 2] ?? end;
  const dir = unit(before, end);
  const stop = { x: end.x - dir.x * ARROW_LENGTH, y: end.y - dir.y * ARROW_LENGTH };
  const route = [...points.slice(0, -1), stop];
  let line = `M${r1(route[0]!.x)} ${r1(route[0]!.y)}`;
  for (let i = 1; i < route.length - 1; i++) {
    const [prev, at, next] = [route[i - 1]!, route[i]!, route[i + 1]!];
    const radius = Math.min(CORNER_RADIUS, Math.hypot(at.x - prev.x, at.y - prev.y) / 2, Math.hypot(next.x - at.x, next.y - at.y) / 2);
    const [inDir, outDir] = [unit(prev, at), unit(at, next)];
    line += ` L${r1(at.x - inDir.x * radius)} ${r1(at.y - inDir.y * radius)}`;
    line += ` Q${r1(at.x)} ${r1(at.y)} ${r1(at.x + outDir.x * radius)} ${r1(at.y + outDir.y * radius)}`;
  }
  line += ` L${r1(stop.x)} ${r1(stop.y)}`;
  const side = { x: -dir.y * ARROW_HALF_WIDTH, y: dir.x * ARROW_HALF_WIDTH };
  const arrow = `M${r1(end.x)} ${r1(end.y)} L${r1(stop.x + side.x)} ${r1(stop.y + side.y)} L${r1(stop.x - side.x)} ${r1(stop.y - side.y)} Z`;
  return { line, arrow };
}

function labelText(edge: GraphEdge): JSX.Element {
  const suffix = edge.guard !== undefined ? ` [${edge.guard}]` : edge.else ? ' [else]' : '';
  if (suffix === '' || !edge.label.endsWith(suffix)) return <>{edge.label}</>;
  return (
    <>
      {edge.label.slice(0, edge.label.length - suffix.length)} <tspan class="guard">{suffix.trim()}</tspan>
    </>
  );
}

function classes(...names: (string | false | undefined)[]): string {
  return names.filter(Boolean).join(' ');
}

export function Statechart({ graph, layout, counts, rates, pulsing, selected, path, onSelect }: Props) {
  const initial = routePaths(layout.initial.points);
  const scroller = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // When the chart is wider than the screen, start with the initial state in view.
    const el = scroller.current;
    if (!el || el.scrollWidth <= el.clientWidth) return;
    const scale = el.scrollWidth / layout.width;
    el.scrollLeft = Math.max(0, layout.initial.center.x * scale - el.clientWidth / 2);
  }, [layout]);
  const onKey = (state: string) => (event: KeyboardEvent) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      onSelect(state);
    }
  };
  return (
    <div class="chart-scroll" ref={scroller}>
      <svg
        class="statechart"
        viewBox={`0 0 ${layout.width} ${layout.height}`}
        style={{ minWidth: `${Math.round(layout.width * MIN_SCALE)}px`, maxWidth: `${Math.round(layout.width * 1.15)}px` }}
        aria-labelledby={`chart-${graph.id}`}
      >
        <title id={`chart-${graph.id}`}>{`${graph.id} state machine`}</title>
        <g class="initial">
          <circle cx={layout.initial.center.x} cy={layout.initial.center.y} r={6} />
          <path class="line" d={initial.line} />
          <path class="arrow" d={initial.arrow} />
        </g>
        {layout.edges.map(({ edge, points, label }) => {
          const route = routePaths(points);
          const key = edgeKey(graph.id, edge.id);
          const perSecond = rates.get(key) ?? 0;
          const cls = classes(
            'edge',
            pulsing.has(key) && 'pulse',
            perSecond > 0 && 'busy',
            path?.edges.has(edge.id) && 'on-path',
            path?.markerEdges?.includes(edge.id) && 'marker',
          );
          return (
            <g key={edge.id} class={cls} data-edge={edge.id}>
              <title>{`${edge.label}: ${rate(perSecond)} over the last 5 minutes`}</title>
              <path class="line" d={route.line} />
              <path class="arrow" d={route.arrow} />
              <rect class="label-bg" x={label.x - 2} y={label.y} width={label.width + 4} height={label.height} rx={3} />
              <text class="label" x={label.x + label.width / 2} y={label.y + label.height / 2 + 4.2} text-anchor="middle">
                {labelText(edge)}
              </text>
              <text class="rate" x={label.x + label.width / 2} y={label.y + label.height + 9} text-anchor="middle" data-rate>
                {perSecond > 0 ? rate(perSecond) : ''}
              </text>
            </g>
          );
        })}
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
              <text class="name" x={cx} y={cy - 2.5} text-anchor="middle">
                {state.id}
              </text>
              <text class="count" x={cx} y={cy + 11} text-anchor="middle" data-count={n}>
                {count(n)}
              </text>
            </g>
          );
        })}
      </svg>
    </div>
  );
}
