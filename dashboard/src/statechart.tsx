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
import { routePaths } from '../../src/diagram/route-paths.js';
import type { DashboardGraph, DiagramLayout, GraphEdge } from './types';

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

/** Below this scale text gets too small to read: the chart scrolls sideways instead. */
const MIN_SCALE = 0.72;

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
