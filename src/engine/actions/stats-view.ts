/**
 * What `queue.stats()` lists by name, bounded: a name is any string a caller
 * enqueued under, so a caller with the token could make up twenty thousand
 * and make every stats answer, `/metrics` scrape and dashboard refresh carry
 * them all (3 MB and half a second a scrape, measured). The names this queue
 * defines or declares are always listed (the code bounds them); of the
 * others, the ones with the most jobs, up to `NAMES_LISTED` names in all; the
 * rest are summed in `otherNames`.
 */
import { NAMES_LISTED } from '../../lib/name-bound.js';
import type { QueueStats } from '../../store/store.js';

/** The names stats does not list, summed: how many, and their jobs by state. */
export interface OtherNames {
  names: number;
  byState: Record<string, number>;
}

const total = (byState: Record<string, number>) => Object.values(byState).reduce((a, b) => a + b, 0);

export function boundNames(stats: QueueStats, own: ReadonlySet<string>, max = NAMES_LISTED): QueueStats & { otherNames?: OtherNames } {
  const names = Object.keys(stats.byName);
  if (names.length <= max) return stats;
  const others = names.filter((name) => !own.has(name)).sort((a, b) => total(stats.byName[b]!) - total(stats.byName[a]!) || (a < b ? -1 : 1));
  const room = Math.max(0, max - (names.length - others.length));
  const kept = new Set([...names.filter((name) => own.has(name)), ...others.slice(0, room)]);
  const byName: Record<string, Record<string, number>> = Object.create(null);
  const otherNames: OtherNames = { names: 0, byState: Object.create(null) };
  for (const name of names) {
    const counts = stats.byName[name]!;
    if (kept.has(name)) {
      byName[name] = counts;
      continue;
    }
    otherNames.names += 1;
    for (const [state, n] of Object.entries(counts)) otherNames.byState[state] = (otherNames.byState[state] ?? 0) + n;
  }
  return { ...stats, byName, otherNames };
}

