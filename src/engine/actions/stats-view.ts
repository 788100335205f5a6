/**
 * What `queue.stats()` lists by name, bounded (lib/name-bound.ts): the names
 * this queue defines or declares, then those with the most jobs, up to
 * `NAMES_LISTED` in all; the rest are summed in `otherNames`.
 */
import { listedNames } from '../../lib/name-bound.js';
import type { QueueStats } from '../../store/store.js';

/** The names stats does not list, summed: how many, and their jobs by state. */
export interface OtherNames {
  names: number;
  byState: Record<string, number>;
}

const total = (byState: Record<string, number>) => Object.values(byState).reduce((a, b) => a + b, 0);

export function boundNames(stats: QueueStats, own: ReadonlySet<string>): QueueStats & { otherNames?: OtherNames } {
  const listed = listedNames(new Map(Object.entries(stats.byName).map(([name, byState]) => [name, total(byState)])), own);
  if (listed === undefined) return stats;
  const byName: Record<string, Record<string, number>> = Object.create(null);
  const otherNames: OtherNames = { names: 0, byState: Object.create(null) };
  for (const [name, counts] of Object.entries(stats.byName)) {
    if (listed.has(name)) {
      byName[name] = counts;
      continue;
    }
    otherNames.names += 1;
    for (const [state, n] of Object.entries(counts)) otherNames.byState[state] = (otherNames.byState[state] ?? 0) + n;
  }
  return { ...stats, byName, otherNames };
}
