/** QueueStats from the counts of jobs by state and name (the `stats` statement of either store). */
import { nameRecord } from '../lib/name-record.js';
import type { QueueStats } from './store.js';

export function foldStats(rows: Iterable<{ state: string; name: string; n: number | string }>): QueueStats {
  const stats: QueueStats = { total: 0, byState: nameRecord(), byName: nameRecord() };
  for (const r of rows) {
    const n = Number(r.n);
    stats.total += n;
    stats.byState[r.state] = (stats.byState[r.state] ?? 0) + n;
    stats.byName[r.name] = { ...stats.byName[r.name], [r.state]: n };
  }
  return stats;
}
