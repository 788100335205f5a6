/**
 * What both stores' limited claims (sqlite/claim-limited.ts,
 * postgres/claim-limited.ts) decide between their reads, so that each store
 * only says how it reads: which names are open, what the limit rows say, how
 * many ungrouped jobs of a limited name to read, and which groups offer more
 * than their first job. The selection itself is claim-limits.ts.
 */
import { bucketId, groupLimit, nameAllowance, type RunningCount, type Spent } from './claim-limits.js';
import type { ClaimRequest, NameLimits } from './store.js';

/** A claim's rate terms (ClaimRequest `rate`), or what they are without them. */
export function rateTerms(req: Pick<ClaimRequest, 'now' | 'startWithinMs' | 'rate'>): { now: number; stampAt: number; ahead: boolean } {
  return req.rate ?? { now: req.now, stampAt: req.now + (req.startWithinMs ?? 0), ahead: req.startWithinMs !== undefined };
}

/** Names with a limit of their own (not only a group concurrency, which binds grouped jobs alone): their claims take the limited path. */
export const hasNameLimit = (limits: NameLimits | undefined): boolean => limits?.globalConcurrency !== undefined || limits?.rateLimit !== undefined;

/** The names not paused by a RateLimitedError (`pauses`: [name, until] in force), and the earliest end of a pause among the others. */
export function withoutRatePaused(names: readonly string[], pauses: ReadonlyArray<readonly [string, number]>): { names: string[]; pauseEnds: number | null } {
  let pauseEnds: number | null = null;
  const held = new Set<string>();
  for (const [name, until] of pauses) {
    if (!names.includes(name)) continue;
    held.add(name);
    pauseEnds = Math.min(pauseEnds ?? until, until);
  }
  return { names: held.size === 0 ? [...names] : names.filter((n) => !held.has(n)), pauseEnds };
}

/** A row of the limits table as a claim reads it. */
export interface LimitFact {
  kind: string;
  key: string;
  concurrency: number | null;
  spent: string | null;
  pausedUntil: number | null;
}

/** What the limit rows say at `now`: groups' own concurrency, paused groups, buckets, and the earliest end of a pause (from `pauseEnds` on). */
export function limitFacts(rows: Iterable<LimitFact>, now: number, pauseEnds: number | null) {
  const overrides = new Map<string, number>();
  const paused = new Set<string>();
  const buckets = new Map<string, Spent>();
  let wakeAt = pauseEnds;
  for (const row of rows) {
    if (row.kind === 'group' && row.concurrency !== null) overrides.set(row.key, row.concurrency);
    if (row.kind === 'group' && row.pausedUntil !== null && row.pausedUntil > now) {
      paused.add(row.key);
      wakeAt = wakeAt === null ? row.pausedUntil : Math.min(wakeAt, row.pausedUntil);
    }
    if (row.spent !== null) buckets.set(bucketId({ kind: row.kind as 'name', key: row.key }), JSON.parse(row.spent) as Spent);
  }
  return { overrides, paused, buckets, wakeAt };
}

/**
 * Ungrouped jobs of a limited name to read: as many as it may take, plus one
 * to learn whether it holds jobs back (the claim then says so).
 */
export function readLimit(name: string, limit: number, startNow: number, facts: { limits: ReadonlyMap<string, NameLimits>; running: readonly RunningCount[]; buckets: ReadonlyMap<string, Spent>; now: number; ahead: boolean }): number {
  // Ahead, rate-limited jobs go into the claimer's buffer too (claim-limits.ts).
  const rate = facts.limits.get(name)?.rateLimit !== undefined && !facts.ahead;
  return Math.min(limit, nameAllowance(name, facts), rate ? startNow : limit) + 1;
}

/** The most jobs of `group` that may run at once under any of `names`. */
export function widestLimit(group: string, names: readonly string[], limits: ReadonlyMap<string, NameLimits>, overrides: ReadonlyMap<string, number>): number {
  return Math.max(...names.map((n) => groupLimit(group, n, limits, overrides)));
}

/**
 * Fewer groups with jobs than the claim wants: how many jobs each group
 * found should offer (more than its first), up to its free slots. Only the
 * groups that offer more than one are listed.
 */
export function widenGroups(groups: ReadonlyArray<{ key: string }>, wanted: number, limit: number, free: (group: string) => number): Array<{ key: string; more: number }> {
  if (groups.length === 0 || groups.length >= wanted) return [];
  const each = Math.ceil(wanted / groups.length);
  return groups.map((g) => ({ key: g.key, more: Math.min(each, free(g.key), limit) })).filter((g) => g.more > 1);
}

/** The per-group buckets (keys of kind 'name-group') the groups' offered jobs spend from. */
export function groupBucketKeys(groups: ReadonlyArray<{ key: string; heads: ReadonlyArray<{ name: string }> }>, limits: ReadonlyMap<string, NameLimits>): string[] {
  return [...new Set(groups.flatMap((g) => g.heads.filter((h) => limits.get(h.name)?.rateLimit?.perGroup).map((h) => JSON.stringify([h.name, g.key]))))];
}
