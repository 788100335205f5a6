/**
 * What the page takes from the live stream: counts per state for each graph
 * (from the per-name counts), per-edge rates over a sliding window built from
 * the ticks' aggregated transitions, and what is paused.
 */
import type { DashboardGraph, GraphEdge, Paused, Tick, TickTransition } from './types';

export const RATE_WINDOW_MS = 5 * 60_000;

/** The same pauses (names sorted, as the server sends them). */
export function samePaused(a: Paused, b: Paused): boolean {
  return a.all === b.all && a.names.length === b.names.length && a.names.every((n, i) => n === b.names[i]);
}

/** What is paused once `name` is paused (`on`) or resumed: the next tick says the same, from the store. */
export function pausedWith(paused: Paused, name: string, on: boolean): Paused {
  const names = paused.names.filter((n) => n !== name);
  if (on) names.push(name);
  return { all: paused.all, names: names.sort() };
}

/** Which graph a job name belongs to: the one that names it, else the catch-all (names: null). */
export function graphForName(graphs: DashboardGraph[], name: string | null): DashboardGraph | undefined {
  // null: a job deleted before the feed read its change; its edge is looked for on the chart of the other names.
  return (name === null ? undefined : graphs.find((g) => g.names?.includes(name))) ?? graphs.find((g) => g.names === null);
}

/** The job names a graph covers, from the names the server knows. */
export function namesOfGraph(graphs: DashboardGraph[], graph: DashboardGraph, known: string[]): string[] {
  if (graph.names !== null) return graph.names;
  const claimed = new Set(graphs.flatMap((g) => g.names ?? []));
  return known.filter((n) => !claimed.has(n));
}

/** The id machineGraph gives the edge a transition took: `from:event:to`, `#n` for the n-th guarded candidate. */
function edgeId(t: { from: string | null; to: string; event: string; candidate?: number }): string {
  return `${t.from}:${t.event}:${t.to}${t.candidate && t.candidate > 1 ? `#${t.candidate}` : ''}`;
}

/**
 * The edge a transition took: by its id (the server says which guarded
 * candidate it was), else by (from, to) when the event is not one the graph
 * names (a machine whose delayed events are named otherwise).
 */
export function matchEdge(edges: GraphEdge[], t: { from: string | null; to: string; event: string; candidate?: number }): GraphEdge | undefined {
  if (t.from === null) return undefined;
  const id = edgeId(t);
  return edges.find((e) => e.id === id) ?? edges.find((e) => e.from === t.from && e.to === t.to);
}

/**
 * The edges a history row may have taken: the one its id names, else every
 * candidate for the same (from, to, event) — rows recorded before candidates
 * were kept cannot tell guarded twins apart.
 */
export function candidateEdges(edges: GraphEdge[], t: { from: string | null; to: string; event: string; candidate?: number }): string[] {
  if (t.from === null) return [];
  const id = edgeId(t);
  if (t.candidate !== undefined && edges.some((e) => e.id === id)) return [id];
  // The event as the history shows it names the edge (its id without the candidate's `#n`).
  const base = edgeId({ ...t, candidate: undefined });
  const exact = edges.filter((e) => e.id.replace(/#\d+$/, '') === base);
  return (exact.length > 0 ? exact : edges.filter((e) => e.from === t.from && e.to === t.to)).map((e) => e.id);
}

interface Hit {
  at: number;
  edge: string;
  count: number;
}

/** Edge traffic per graph over the last RATE_WINDOW_MS. */
export class EdgeRates {
  private hits: Hit[] = [];
  private since: number | undefined;

  constructor(private readonly graphs: DashboardGraph[]) {}

  /** Records a tick; returns the edges (`graphId edgeId`) it took. */
  add(tick: Tick): Set<string> {
    this.since ??= tick.at;
    const taken = new Set<string>();
    for (const t of tick.transitions) {
      const key = this.keyOf(t);
      if (key === undefined || t.count <= 0) continue;
      this.hits.push({ at: tick.at, edge: key, count: t.count });
      taken.add(key);
    }
    const cutoff = tick.at - RATE_WINDOW_MS;
    while (this.hits.length > 0 && this.hits[0]!.at < cutoff) this.hits.shift();
    return taken;
  }

  /** Jobs per second on each edge, over the window (or the time watched so far, if shorter). */
  rates(now: number): Map<string, number> {
    const out = new Map<string, number>();
    if (this.since === undefined) return out;
    const span = Math.max(10_000, Math.min(RATE_WINDOW_MS, now - this.since));
    for (const hit of this.hits) out.set(hit.edge, (out.get(hit.edge) ?? 0) + hit.count);
    for (const [edge, n] of out) out.set(edge, n / (span / 1000));
    return out;
  }

  clear(): void {
    this.hits = [];
    this.since = undefined;
  }

  private keyOf(t: TickTransition): string | undefined {
    const graph = graphForName(this.graphs, t.name);
    const edge = graph && matchEdge(graph.graph.edges, t);
    return graph && edge ? edgeKey(graph.id, edge.id) : undefined;
  }
}

export function edgeKey(graphId: string, edgeId: string): string {
  return `${graphId} ${edgeId}`;
}
