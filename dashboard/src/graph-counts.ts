/** Jobs per state for one chart: its names' counts (or every unclaimed name's, for the catch-all). No imports: tests call it as it is. */

interface ChartNames {
  /** null: every job name no other chart claims. */
  names: string[] | null;
}

export function graphCounts(graphs: readonly ChartNames[], graph: ChartNames, names: Readonly<Record<string, Readonly<Record<string, number>>>>): Record<string, number> {
  const claimed = new Set(graphs.flatMap((g) => g.names ?? []));
  const own = graph.names === null ? (n: string) => !claimed.has(n) : (n: string) => graph.names!.includes(n);
  // No prototype: a custom state named `constructor` or `__proto__` is a count like any other.
  const out: Record<string, number> = Object.create(null);
  for (const [state, byName] of Object.entries(names)) {
    let sum = 0;
    for (const [name, n] of Object.entries(byName)) if (own(name)) sum += n;
    out[state] = sum;
  }
  return out;
}
