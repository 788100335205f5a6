/**
 * What `queue.limits()` shows (and the CLI, HTTP API and dashboard with it):
 * each limited name with its jobs running and the tokens its bucket has left,
 * and the groups with jobs pending or running, with the concurrency and pause
 * stored for them.
 */
import { tokens } from '../../store/claim-limits.js';
import type { LimitRecord, NameLimits, Store } from '../../store/store.js';
import { checkGroup } from '../core/limits.js';
import type { LimitChanges } from '../core/live-limits.js';
import { checkInteger } from '../../lib/validate.js';

export interface NameLimitView {
  name: string;
  groupConcurrency: number | null;
  globalConcurrency: number | null;
  rateLimit: { max: number; perMs: number; perGroup: boolean } | null;
  /** Jobs of this name leased now, in every process. */
  running: number;
  /** Claims the name's bucket allows now (null without a rate limit). */
  tokensLeft: number | null;
  /** Paused by a handler's RateLimitedError until then. */
  pausedUntil: Date | null;
  /** The limits changed while the queue runs (`setLimits`) over the definitions': a value set, null turned off. Absent: none. */
  changed?: LimitChanges;
}

export interface GroupView {
  group: string;
  pending: number;
  running: number;
  /** Set for this group (`setGroupConcurrency`); null: the definitions' `groupConcurrency`. */
  concurrency: number | null;
  pausedUntil: Date | null;
}

export interface LimitsView {
  names: NameLimitView[];
  groups: GroupView[];
}

/** Groups listed at most (busiest first). */
export const GROUPS_LISTED = 200;

const paused = (row: LimitRecord | undefined, now: number): Date | null => (row?.pausedUntil != null && row.pausedUntil > now ? new Date(row.pausedUntil) : null);

export async function limitsView(store: Store, limits: ReadonlyMap<string, NameLimits>, now: number, changed: ReadonlyMap<string, LimitChanges> = new Map()): Promise<LimitsView> {
  const rows = await store.limits();
  const row = (kind: string, key: string) => rows.find((r) => r.kind === kind && r.key === key);
  const listed = [...new Set([...limits.keys(), ...changed.keys(), ...rows.filter((r) => r.kind === 'name').map((r) => r.key)])].sort();
  // Running jobs from the leased ones only: a count of the whole table (stats) would read every job each refresh.
  const [counts, running] = await Promise.all([store.groupCounts(GROUPS_LISTED), store.runningByName(listed)]);
  const names = listed.map((name): NameLimitView => {
    const lim = limits.get(name);
    const rate = lim?.rateLimit ?? null;
    return {
      name,
      groupConcurrency: lim?.groupConcurrency ?? null,
      globalConcurrency: lim?.globalConcurrency ?? null,
      rateLimit: rate,
      running: running.find((r) => r.name === name)?.n ?? 0,
      tokensLeft: rate ? tokens(row('name', name)?.spent, rate, now).left : null,
      pausedUntil: paused(row('name', name), now),
      ...(changed.has(name) ? { changed: changed.get(name)! } : {}),
    };
  });
  const groups: GroupView[] = counts.map((c) => ({
    group: c.group,
    pending: Number(c.pending),
    running: Number(c.running),
    concurrency: row('group', c.group)?.concurrency ?? null,
    pausedUntil: paused(row('group', c.group), now),
  }));
  // Groups with a setting of their own but no job now are listed too.
  for (const r of rows) {
    if (r.kind !== 'group' || groups.some((g) => g.group === r.key)) continue;
    if (r.concurrency === null && paused(r, now) === null) continue;
    groups.push({ group: r.key, pending: 0, running: 0, concurrency: r.concurrency, pausedUntil: paused(r, now) });
  }
  return { names, groups };
}

/** Checks `setGroupConcurrency`'s arguments. */
export function checkGroupConcurrency(group: unknown, concurrency: unknown): { group: string; concurrency: number | null } {
  return { group: checkGroup('setGroupConcurrency group', group), concurrency: concurrency === null ? null : checkInteger('setGroupConcurrency concurrency', concurrency, 1, 1_000_000) };
}
