/**
 * The "Job lifecycle" panel's body: one machine at a time (a tab per machine
 * when the queue runs several), drawn as its chart when the panel is wide
 * enough to show all of it at a readable size, else as the list of its
 * states. Never a chart that scrolls sideways: a state cut off at the edge
 * is a state nobody sees.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { graphCounts } from './graph-counts';
import { StateList } from './state-list';
import { type PathHighlight, Statechart } from './statechart';
import type { DashboardConfig, DashboardGraph, NameCounts } from './types';

/**
 * The chart is drawn only at this scale or more: the layout's smallest text
 * is 12 units, so about 10 px at the least. Below it, the list.
 */
const MIN_SCALE = 0.85;

interface Props {
  config: DashboardConfig;
  names: NameCounts;
  rates: Map<string, number>;
  pulsing: Set<string>;
  selected: { graph: string; state: string } | undefined;
  path: PathHighlight | undefined;
  /** The chart the path belongs to: its tab is brought forward when a job's path is shown. */
  pathGraph: string | undefined;
  onSelect(graph: string, state: string): void;
}

/** The element's content width, followed as it changes (undefined before the first measure). */
function useContentWidth(ref: { current: HTMLElement | null }): number | undefined {
  const [width, setWidth] = useState<number | undefined>();
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setWidth(el.clientWidth);
    const observer = new ResizeObserver(() => setWidth(el.clientWidth));
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}

function MachineTabs({ graphs, shown, onShow }: { graphs: DashboardGraph[]; shown: string; onShow(id: string): void }) {
  const onKey = (event: KeyboardEvent) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const at = graphs.findIndex((g) => g.id === shown);
    const next = graphs[(at + step + graphs.length) % graphs.length]!;
    onShow(next.id);
    document.getElementById(`machine-tab-${next.id}`)?.focus();
  };
  return (
    <div class="machine-tabs" role="tablist" aria-label="Job machines" onKeyDown={onKey}>
      {graphs.map((g) => (
        <button
          key={g.id}
          type="button"
          role="tab"
          id={`machine-tab-${g.id}`}
          aria-selected={g.id === shown}
          aria-controls="machine-panel"
          tabindex={g.id === shown ? 0 : -1}
          data-machine={g.id}
          onClick={() => onShow(g.id)}
        >
          {g.id} <span class="muted">{g.names === null ? 'every other name' : g.names.join(', ')}</span>
        </button>
      ))}
    </div>
  );
}

export function Lifecycle({ config, names, rates, pulsing, selected, path, pathGraph, onSelect }: Props) {
  const { graphs } = config;
  // The tab shown: the selection's machine, unless a job's path brought another forward (that changes no selection).
  const [forward, setForward] = useState<string | undefined>();
  useEffect(() => setForward(undefined), [selected?.graph]);
  const shown = graphs.find((g) => g.id === (forward ?? selected?.graph)) ?? graphs[0]!;
  const box = useRef<HTMLDivElement>(null);
  const width = useContentWidth(box);

  // Showing another machine keeps the state chosen when that machine has it too (dead → dead).
  const show = (id: string) => {
    const g = graphs.find((c) => c.id === id);
    setForward(undefined);
    if (!g || g.id === selected?.graph) return;
    onSelect(g.id, selected && g.graph.states.some((s) => s.id === selected.state) ? selected.state : g.graph.initial);
  };
  useEffect(() => {
    if (pathGraph !== undefined) setForward(pathGraph);
  }, [pathGraph]);

  const layout = shown.layouts.RIGHT;
  const props = {
    graph: shown,
    layout,
    counts: graphCounts(graphs, shown, names),
    rates,
    pulsing,
    selected: selected?.graph === shown.id ? selected.state : undefined,
    path: pathGraph === shown.id ? path : undefined,
    onSelect: (state: string) => onSelect(shown.id, state),
  };
  return (
    <>
      {graphs.length > 1 && <MachineTabs graphs={graphs} shown={shown.id} onShow={show} />}
      <div
        ref={box}
        id="machine-panel"
        class="machine"
        data-machine={shown.id}
        {...(graphs.length > 1 ? { role: 'tabpanel', 'aria-labelledby': `machine-tab-${shown.id}` } : {})}
      >
        {width !== undefined &&
          (layout && width >= layout.width * MIN_SCALE ? <Statechart key={shown.id} {...props} layout={layout} /> : <StateList key={shown.id} {...props} />)}
      </div>
    </>
  );
}
