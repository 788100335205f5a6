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
import { NAMES_LISTED } from '../../lib/name-bound.js';

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
  /** Names and groups left out past the bounds (NAMES_LISTED, GROUPS_LISTED): absent when none. */
  more?: { names: number; groups: number };
}

/** Groups listed at most (busiest first). */
export const GROUPS_LISTED = 200;

const paused = (row: LimitRecord | undefined, now: number): Date | null => (row?.pausedUntil != null && row.pausedUntil > now ? new Date(row.pausedUntil) : null);

/** Which names are always listed: the queue's own (defined) ones, and one a caller asks about (`include`). */
export interface LimitsListing {
  own: ReadonlySet<string>;
  include?: string;
}

export async function limitsView(
  store: Store,
  limits: ReadonlyMap<string, NameLimits>,
  now: number,
  changed: ReadonlyMap<string, LimitChanges> = new Map(),
  listing: LimitsListing = { own: new Set(limits.keys()) },
): Promise<LimitsView> {
  const rows = await store.limits();
  const byKey = new Map(rows.map((r) => [`${r.kind}\u0000${r.key}`, r]));
  const row = (kind: string, key: string) => byKey.get(`${kind}\u0000${key}`);
  // The limited names the queue defines, then those limits were stored or changed for (a caller may make up thousands), up to the bound.
  const always = new Set([...limits.keys()].filter((name) => listing.own.has(name) || name === listing.include));
  const others = [...new Set([...limits.keys(), ...changed.keys(), ...rows.filter((r) => r.kind === 'name').map((r) => r.key)])].filter((name) => !always.has(name)).sort();
  const room = Math.max(0, NAMES_LISTED - always.size);
  const listed = [...always, ...others.slice(0, room)].sort();
  const moreNames = Math.max(0, others.length - room);
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
  // Groups with a setting of their own but no job now are listed too, up to the bound.
  const shown = new Set(groups.map((g) => g.group));
  let moreGroups = 0;
  for (const r of rows) {
    if (r.kind !== 'group' || shown.has(r.key)) continue;
    if (r.concurrency === null && paused(r, now) === null) continue;
    if (groups.length >= GROUPS_LISTED) {
      moreGroups++;
      continue;
    }
    groups.push({ group: r.key, pending: 0, running: 0, concurrency: r.concurrency, pausedUntil: paused(r, now) });
  }
  return { names, groups, ...(moreNames + moreGroups > 0 ? { more: { names: moreNames, groups: moreGroups } } : {}) };
}

/** Checks `setGroupConcurrency`'s arguments. */
export function checkGroupConcurrency(group: unknown, concurrency: unknown): { group: string; concurrency: number | null } {
  return { group: checkGroup('setGroupConcurrency group', group), concurrency: concurrency === null ? null : checkInteger('setGroupConcurrency concurrency', concurrency, 1, 1_000_000) };
}
