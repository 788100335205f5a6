/**
 * A job machine as a list, for a panel too narrow for its chart (a phone):
 * each state a button with its count, in the order the chart's layers run,
 * and under it the edges that leave it, each with its target, its recent
 * rate and its pulse. The same classes as the chart mark the selected state
 * and a job's path.
 */
import { count, rate } from './format';
import { edgeKey } from './live';
import type { PathHighlight } from './statechart';
import type { DashboardGraph, DiagramLayout, GraphState } from './types';

interface Props {
  graph: DashboardGraph;
  /** null: no layout (it failed or took too long): the machine's own order. */
  layout: DiagramLayout | null;
  counts: Record<string, number>;
  rates: Map<string, number>;
  pulsing: Set<string>;
  selected: string | undefined;
  path: PathHighlight | undefined;
  onSelect(state: string): void;
}

function classes(...names: (string | false | undefined)[]): string {
  return names.filter(Boolean).join(' ');
}

/** Boxes whose centres are closer than this across the flow sit in one layer of the chart (elk centres a layer's boxes on one line). */
const SAME_LAYER = 24;

/**
 * The states as the chart reads them, layer by layer and top to bottom
 * within a layer, the finished ones last: a job's way runs down the list.
 */
function inFlowOrder(layout: DiagramLayout | null, states: GraphState[]): GraphState[] {
  if (!layout) return [...states].sort((a, b) => Number(a.final) - Number(b.final));
  const byCentre = [...layout.states].sort((a, b) => a.x + a.width / 2 - (b.x + b.width / 2));
  const layer = new Map<string, number>();
  byCentre.forEach((placed, i) => {
    const before = byCentre[i - 1];
    const gap = before ? placed.x + placed.width / 2 - (before.x + before.width / 2) : 0;
    layer.set(placed.state.id, (before ? layer.get(before.state.id)! : 0) + (gap > SAME_LAYER ? 1 : 0));
  });
  return [...layout.states]
    .sort((a, b) => Number(a.state.final) - Number(b.state.final) || layer.get(a.state.id)! - layer.get(b.state.id)! || a.y - b.y)
    .map((placed) => placed.state);
}

export function StateList({ graph, layout, counts, rates, pulsing, selected, path, onSelect }: Props) {
  const edges = graph.graph.edges;
  return (
    <ol class="state-list" aria-label={`${graph.id} state machine`}>
      {inFlowOrder(layout, graph.graph.states).map((state) => {
        const n = counts[state.id] ?? 0;
        const exits = edges.filter((edge) => edge.from === state.id);
        return (
          <li key={state.id}>
            <button
              type="button"
              class={classes(
                'state',
                `s-${state.id}`,
                state.final && 'final',
                selected === state.id && 'selected',
                path?.states.has(state.id) && 'on-path',
                path?.markerState === state.id && 'marker',
              )}
              data-state={state.id}
              aria-pressed={selected === state.id}
              aria-label={`${state.id}: ${n} job${n === 1 ? '' : 's'}`}
              onClick={() => onSelect(state.id)}
            >
              <span class="name">{state.id}</span>
              <span class="count" data-count={n}>
                {count(n)}
              </span>
            </button>
            {exits.length > 0 && (
              <ul class="exits">
                {exits.map((edge) => {
                  const key = edgeKey(graph.id, edge.id);
                  const perSecond = rates.get(key) ?? 0;
                  return (
                    <li
                      key={edge.id}
                      class={classes(
                        'edge',
                        pulsing.has(key) && 'pulse',
                        perSecond > 0 && 'busy',
                        path?.edges.has(edge.id) && 'on-path',
                        path?.markerEdges?.includes(edge.id) && 'marker',
                      )}
                      data-edge={edge.id}
                    >
                      <span class="label">{edge.label}</span> <span class="to">{edge.to === edge.from ? '↺' : `→ ${edge.to}`}</span>
                      <span class="rate" data-rate>
                        {perSecond > 0 ? rate(perSecond) : ''}
                      </span>
                    </li>
                  );
                })}
              </ul>
            )}
          </li>
        );
      })}
    </ol>
  );
}
